#!/usr/bin/env bash
# The measurements the open issues' "done means" ask for (29: suites; 30: transposed, batched, the torch operator;
# 31: TF32 and 3xTF32), on one GPU, most wanted first, each into its own folder under OUT (default /tmp/done_means)
# with a log of every step; a step that fails is logged and the next one runs. From the repository root on a GPU
# machine, with the wheels of tools/gpu_prefix.sh in .whl/ (about 25 minutes on an H100; the suites take most):
#
#     bash tools/done_means.sh /tmp/done_means 2>&1 | tee /tmp/done_means.log
#
# Its first step tunes the small squares with the tuner's latest candidates (chapter 15's 16-row tiles) and rebuilds
# the shipped table from every log, as the H200's was on 2026-11-29, so the suites after it run that table: commit
# the new log, tune_logs.txt and the table with them. Then copy what each step wrote into benchmarks/results/<gpu>/
# (the folders' READMEs say where each file goes) and change every sentence that quotes the numbers it replaces.
#
# A device call of at most 10 minutes holds a few steps, not all: name them after OUT, and give each run of
# cudamm-bench a budget so that the call's limit cannot cut a suite off before it writes its files (a fresh machine
# each call: commit the table of tune_small and table before the suites' call), e.g.
#
#     BENCH_BUDGET=480 bash tools/done_means.sh /tmp/done_means random 2>&1 | tee /tmp/done_means.log
#
# and where the random run's budget left shapes out, its folder copied into the checkout and resumed in the next call:
#
#     RESUME=benchmarks/results/h100/random/seed_S BENCH_BUDGET=480 bash tools/done_means.sh /tmp/done_means random_rest
OUT=${1:-/tmp/done_means}
only=("${@:2}")                              # the steps to run (default: every one)
. tools/gpu_prefix.sh || exit 1
mkdir -p "$OUT"
step() {   # step NAME COMMAND...: run it, its output in OUT/NAME.txt, a line with its exit status and time
    local name=$1; shift
    if [ ${#only[@]} -gt 0 ] && [[ " ${only[*]} " != *" $name "* ]]; then return; fi
    local t0=$SECONDS
    echo "== $name  $(date -u +%H:%M:%S) UTC: $*"
    "$@" > "$OUT/$name.txt" 2>&1
    echo "   exit $?  $((SECONDS - t0)) s"; tail -n 3 "$OUT/$name.txt"
}
bench() { python3 -m cudamm.cli --no-progress ${BENCH_BUDGET:+--budget "$BENCH_BUDGET"} "$@"; }
model_alone() { CUDAMM_TABLES=0 bench "$@"; }                             # the model, no table
tune() { python3 -c "import sys; from cudamm.dispatch import main; sys.exit(main())" --no-progress "$@"; }
seed=$(python3 -c "import secrets; print(secrets.randbelow(2**31))")    # drawn now, never tuned for
name=$(python3 -c "import torch; print(torch.cuda.get_device_name())")
logs=benchmarks/results/$(python3 -c "from cudamm.bench_harness import gpu_short_name; print(gpu_short_name('$name'))")
table=$(python3 -c "from cudamm.kernel_table import shipped_table_path; print(shipped_table_path('$name'))")

# the shipped table: the small squares tuned again, then rebuilt from every log (and the tf32x3 lines, if any)
step tune_small tune --shapes 128 256 512 1024 --jobs 14 --log "$logs/shapes/tune_log_rows16.json" --out "$OUT/tuned.json"
[ -f "$logs/shapes/tune_log_rows16.json" ] && { grep -qx tune_log_rows16.json "$logs/shapes/tune_logs.txt" ||
  echo tune_log_rows16.json >> "$logs/shapes/tune_logs.txt"; }
printed=(); [ -f "$logs/tf32x3/tune_output.txt" ] && printed=(--printed "$logs/tf32x3/tune_output.txt")
step table python3 tools/table_from_log.py $(sed "s|^|$logs/shapes/|" "$logs/shapes/tune_logs.txt") "$table" "${printed[@]}"

# issue 29: the users' suite as a reader calls it (shipped table), the model alone, and random shapes
step shapes bench --suite shapes --out "$OUT/shapes"
step random bench --suite random --seed "$seed" --count 40 --out "$OUT/random"
# a random run its budget cut short: the shapes it left out, written back into its folder (cudamm-bench --resume), in
# this call or a later one (RESUME: the folder, copied into the checkout first, since a fresh machine's OUT is empty)
resume=${RESUME:-$OUT/random}
left=$(python3 -c "import json, sys; print(bool(json.load(open(sys.argv[1])).get('settings', {}).get('left')))" \
       "$resume/results.json" 2>/dev/null)
[ "$left" = True ] && step random_rest bench --resume "$resume"
step shapes_model model_alone --suite shapes --out "$OUT/shapes_model"
# issue 31: each precision against its peers, the error against float64 beside every time (k = 65536 for the error)
step tf32x3 bench --precision tf32x3 --sizes 4096 8192 256x256x65536 --out "$OUT/tf32x3"
step tf32 bench --precision tf32 --sizes 4096 8192 --out "$OUT/tf32"
step tf32x3_suite bench --suite shapes --precision tf32x3 --peers cublas --out "$OUT/tf32x3_suite"
# issue 30: x @ w.T without a copy, batches in one launch, the operator's host cost
step transposed python3 benchmarks/experiments/transposed/run.py --out "$OUT/transposed"
step batched python3 benchmarks/experiments/batched/run.py --out "$OUT/batched"
step torch_op python3 benchmarks/experiments/torch_op/run.py --no-save
# every issue: split-k bit-identical across runs, the sanitizer on the kernels that changed most lately
step split_identical python3 -m pytest -m gpu -q tests/test_gpu_shapes.py -k split_products_are_right
step sanitize python3 tools/sanitize.py --kernels fewcols fewrows pipelined splitk --log "$OUT/sanitize"
echo "== done  $(date -u +%H:%M:%S) UTC; seed $seed; results under $OUT"
