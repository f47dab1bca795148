#!/usr/bin/env bash
# The measurements the open issues' "done means" ask for (29: suites; 30: transposed, batched, the torch operator;
# 31: TF32 and 3xTF32), on one GPU, most wanted first, each into its own folder under OUT (default /tmp/done_means)
# with a log of every step; a step that fails is logged and the next one runs. From the repository root on a GPU
# machine, with the wheels of tools/gpu_prefix.sh in .whl/ (about 25 minutes on an H100; the suites take most):
#
#     bash tools/done_means.sh /tmp/done_means 2>&1 | tee /tmp/done_means.log
#
# Then copy what a step wrote into benchmarks/results/<gpu>/ (the folders' READMEs say where each file goes) and
# change every sentence that quotes the numbers it replaces.
OUT=${1:-/tmp/done_means}
. tools/gpu_prefix.sh || exit 1
mkdir -p "$OUT"
step() {   # step NAME COMMAND...: run it, its output in OUT/NAME.txt, a line with its exit status and time
    local name=$1; shift
    local t0=$SECONDS
    echo "== $name  $(date -u +%H:%M:%S) UTC: $*"
    "$@" > "$OUT/$name.txt" 2>&1
    echo "   exit $?  $((SECONDS - t0)) s"; tail -n 3 "$OUT/$name.txt"
}
bench() { python3 -m cudamm.cli --no-progress "$@"; }
seed=$(python3 -c "import secrets; print(secrets.randbelow(2**31))")    # drawn now, never tuned for

# issue 29: the users' suite as a reader calls it (shipped table), the model alone, and random shapes
step shapes bench --suite shapes --out "$OUT/shapes"
step random bench --suite random --seed "$seed" --count 40 --out "$OUT/random"
step shapes_model env CUDAMM_TABLES=0 python3 -m cudamm.cli --no-progress --suite shapes --out "$OUT/shapes_model"
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
