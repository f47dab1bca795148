# The start of a command on a lent GPU machine, which has no network: install the wheels carried there and print what
# the run is on. Source it from the repository root, with the wheels in .whl/ (both .whl/ and .site/ are git-ignored):
#
#     . tools/gpu_prefix.sh && python tools/first_call.py --out benchmarks/results/h100/first_call.txt
#
# .whl/ holds the wheels the image lacks or has in a version that breaks: numpy 2.4 (the image's numpy 2.5 breaks
# numba-cuda) and nbdev. They go into .site/ (no dependencies resolved, nothing compiled), which PYTHONPATH puts
# ahead of the image's packages; the repository root is on PYTHONPATH too, so `import cudamm` is this checkout's.
# It `return`s 1 if the install fails, which is why it must be sourced, not run.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target .site .whl/*.whl || return 1
export PYTHONPATH=$PWD/.site:$PWD PATH=$PWD/.site/bin:$PATH PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
python3 -c "import torch, numba_cuda, numpy; print('torch', torch.__version__, 'numba-cuda', numba_cuda.__version__, 'numpy', numpy.__version__)"
