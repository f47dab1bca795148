# Source this at the start of a command on the GPU machine (device tool, carry [".whl"]):
# installs the carried wheels (numpy 2.4: the image's numpy 2.5 breaks numba-cuda; nbdev) into .site.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target .site .whl/*.whl || return 1
export PYTHONPATH=$PWD/.site:$PWD PATH=$PWD/.site/bin:$PATH PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
python3 -c "import torch, numba_cuda, numpy; print('torch', torch.__version__, 'numba-cuda', numba_cuda.__version__, 'numpy', numpy.__version__)"
