#!/usr/bin/env bash
# The CUDA checks of mxtorch, prepared for the day a GPU machine is lent (the device tool's
# `status` says so).  Run from the repository root on that machine, whose python3 holds PyTorch
# with CUDA; mxtorch is taken from src/ (no install).  It reads the device and never resets or
# reconfigures it.  Budget: about 6 minutes, inside the device tool's 8-minute check.
#
#   device run:  bash bench/cuda_check.sh        (logs go to $OUT, else /tmp/cuda_check)
#   dry run here: CUDA_CHECK_ALLOW_CPU=1 PYTHON=.venv/bin/python bash bench/cuda_check.sh
#
# 1. the device and the PyTorch build;  2. tests/test_cuda.py (every computation on cpu and
# cuda(0), compared), plus the executor/Module/Gluon core on the same interpreter;
# 3. bench/bench_training.py's rows on cuda (mxtorch Module vs plain PyTorch, samples/s).
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-/tmp/cuda_check}"
mkdir -p "$out"
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 MPLBACKEND=Agg
status=0
python="${PYTHON:-python3}"
device=cuda

echo "== device" | tee "$out/summary.txt"
(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv || echo 'no nvidia-smi') 2>&1 | tee -a "$out/summary.txt"
"$python" -c "import torch, mxtorch as mx; print('torch', torch.__version__, 'cuda', torch.version.cuda, \
'available', torch.cuda.is_available(), 'mx.num_gpus', mx.context.num_gpus())" 2>&1 | tee -a "$out/summary.txt"
if ! "$python" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"; then
    if [ "${CUDA_CHECK_ALLOW_CPU:-0}" != 1 ]; then
        echo "no CUDA device visible to PyTorch: nothing to check" | tee -a "$out/summary.txt"; exit 2
    fi
    device=cpu      # a dry run of this script on a machine without a GPU
fi

echo "== tests" | tee -a "$out/summary.txt"
timeout 240 "$python" -m pytest -q -p no:cacheprovider -o addopts= tests/test_cuda.py \
    tests/test_executor_head_gradients.py tests/test_module.py tests/test_gluon_block.py 2>&1 \
    | tee "$out/tests.log" | tail -n 3 | tee -a "$out/summary.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

echo "== training rows on $device" | tee -a "$out/summary.txt"
timeout 150 "$python" bench/bench_training.py --device "$device" --iterations 30 2>&1 | tee "$out/bench.log" \
    | tail -n 8 | tee -a "$out/summary.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
exit $status
