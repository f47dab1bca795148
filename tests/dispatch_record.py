"""What dispatch decides, recorded: for every suite shape and ~50 others, on four GPUs of the model and with the two
shipped tables, the model's candidates (in order), each one's predicted ms, the model's choice, `shortlist`'s set and
`choose`'s answer. `tests/data/dispatch_before.json` holds the record, made before dispatch looped over the registry
and again where a change of the decisions was the point (see `tests/test_dispatch_registry.py`, which compares the
code of today against it).

Run `PYTHONPATH=$PWD python tests/dispatch_record.py [OUT]` from the repository root to write a record (default: print
a summary only)."""
import dataclasses, json, os, sys, tempfile

OTHER_SHAPES = [   # odd sizes, few rows, few columns, long and short k, a few big ones
    (33, 47, 29), (127, 129, 131), (255, 257, 253), (300, 301, 299), (777, 555, 333), (1000, 1001, 999),
    (1023, 1025, 77), (3001, 2999, 3003), (4095, 4097, 4093), (5000, 5003, 4999), (6000, 6001, 6002),
    (1, 1, 1), (1, 128, 128), (2, 4096, 4096), (3, 1000, 1000), (8, 8192, 8192), (17, 4096, 4096), (32, 4096, 1024),
    (48, 2048, 2048), (63, 4097, 4099), (64, 64, 64), (1, 4097, 4099), (4, 2048, 1000), (1, 65536, 256),
    (4096, 2, 4096), (4096, 3, 4095), (8192, 8, 8192), (1000, 17, 1000), (4096, 32, 4096), (4095, 15, 4097),
    (2048, 48, 2048), (4096, 63, 4096), (65536, 1, 256), (1, 1, 65536), (16, 16, 16384), (4, 4, 4),
    (128, 128, 131072), (64, 64, 262144), (300, 300, 100000), (1024, 1024, 65536), (32, 4096, 65536),
    (4096, 32, 65536), (4096, 4096, 1), (4096, 4096, 4), (8192, 8192, 16), (1000, 1000, 3),
    (16384, 16384, 16384), (12288, 12288, 4096), (3072, 768, 3072), (96, 200, 300), (400, 200, 100),
    (3000, 200, 100)]
MODEL_GPUS = ("H100", "A100", "T4", "RTX 4090")
TABLE_GPUS = ("NVIDIA H100 80GB HBM3", "NVIDIA H200")    # the shipped tables, by the name `choose` looks them up by


def _cfg(cfg) -> str: return ",".join(f"{k}={v}" for k, v in sorted(dict(cfg).items()))


def shapes() -> list[tuple]:
    from cudamm import dispatch
    return [tuple(s) for s in dispatch.SUITE_SIZES] + OTHER_SHAPES


def record() -> dict:
    "The record, from the code imported now (the simulator on: `choose` never asks a real GPU)."
    from cudamm import dispatch
    saved = {k: os.environ.get(k) for k in ("CUDAMM_CACHE_DIR", "CUDAMM_TABLES")}
    out, index = dict(gpus=list(MODEL_GPUS), tables=list(TABLE_GPUS), configs=[], shapes=[]), {}
    def number(name, cfg) -> int:               # configurations by number: the record stays small
        key = f"{name} {_cfg(cfg)}"
        if key not in index: index[key] = len(out["configs"]); out["configs"].append(key)
        return index[key]
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["CUDAMM_CACHE_DIR"] = tmp                 # no user table
        os.environ.pop("CUDAMM_TABLES", None)
        dispatch.forget()
        try:
            for m, n, k in shapes():
                cands = dispatch.candidates(m, n, k)
                item = dict(shape=[m, n, k], candidates=[number(nm, c) for nm, c in cands], ms={}, model={},
                            shortlist={}, table={})
                for g in MODEL_GPUS:
                    dev = dispatch.KNOWN_GPUS[g]
                    item["ms"][g] = [dispatch.predict_ms(nm, c, m, n, k, dev) for nm, c in cands]
                    ch = dispatch.model_choice(m, n, k, dev)
                    item["model"][g] = [number(ch.kernel, ch.config), ch.ms]
                    item["shortlist"][g] = sorted(number(nm, c) for nm, c in dispatch.shortlist(m, n, k, dev))
                for name in TABLE_GPUS:
                    dev = dataclasses.replace(dispatch.KNOWN_GPUS["H100"], name=name)
                    ch = dispatch.choose(m, n, k, dev)
                    item["table"][name] = [ch.kernel, _cfg(ch.config), ch.source, ch.ms]
                    number(ch.kernel, ch.config)
                out["shapes"].append(item)
        finally:
            for key, v in saved.items():
                if v is None: os.environ.pop(key, None)
                else: os.environ[key] = v
            dispatch.forget()
    return out


def write(path, rec: dict):
    "One line per shape, so that a diff shows which shape changed."
    head = {k: v for k, v in rec.items() if k not in ("shapes", "configs")}
    lines = [json.dumps(head, ensure_ascii=False)[:-1] + ', "configs": [']
    lines += [json.dumps(c) + "," for c in rec["configs"][:-1]] + [json.dumps(rec["configs"][-1]) + "],", '"shapes": [']
    lines += [json.dumps(s, ensure_ascii=False) + ("," if i < len(rec["shapes"]) - 1 else "")
              for i, s in enumerate(rec["shapes"])]
    with open(path, "w") as f: f.write("\n".join(lines) + "\n]}\n")


if __name__ == "__main__":
    import cudamm
    cudamm.use_simulator()
    rec = record()
    print(f"{len(rec['shapes'])} shapes, {sum(len(s['candidates']) for s in rec['shapes'])} candidates")
    if len(sys.argv) > 1: write(sys.argv[1], rec)
