bench/cuda_check.sh: line 34: 11: Bad file descriptor
