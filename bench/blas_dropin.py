#!/usr/bin/env python3
"""NumPy float32 matmul through the drop-in BLAS, against the same product
through vncl_gemm on tensors (transfers included, through ctypes on
build/libvncl.so) and against the CPU BLAS alone. For quiet machines:
    /usr/bin/python3 bench/blas_dropin.py [N] [REPEATS]
Each configuration runs in its own process; the median of REPEATS timed
runs after one warm-up is reported."""
import os
import subprocess
import sys

N = int(sys.argv[1]) if len(sys.argv) > 1 else 2048
REP = int(sys.argv[2]) if len(sys.argv) > 2 else 5
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

NUMPY = r'''
import time, numpy as np, sys
n, rep = int(sys.argv[1]), int(sys.argv[2])
rng = np.random.default_rng(1)
a = rng.standard_normal((n, n), dtype=np.float32)
b = rng.standard_normal((n, n), dtype=np.float32)
c = a @ b
ts = []
for _ in range(rep):
    t = time.perf_counter(); c = a @ b; ts.append(time.perf_counter() - t)
ts.sort()
print(ts[len(ts) // 2])
'''

TENSORS = r'''
import ctypes, sys, time, numpy as np
n, rep, lib = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
v = ctypes.CDLL(lib)
ctx = ctypes.c_void_p()
assert v.vncl_context_create(ctypes.byref(ctx), None) == 0
shape = (ctypes.c_int64 * 2)(n, n)
t = [ctypes.c_void_p() for _ in range(3)]
for x in t:
    assert v.vncl_tensor_create(ctx, 0, 2, shape, ctypes.byref(x)) == 0
rng = np.random.default_rng(1)
a = rng.standard_normal((n, n), dtype=np.float32)
b = rng.standard_normal((n, n), dtype=np.float32)
c = np.empty((n, n), dtype=np.float32)
nb = ctypes.c_size_t(a.nbytes)
v.vncl_gemm.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
    ctypes.c_double, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_double,
    ctypes.c_void_p]
def once():
    assert v.vncl_tensor_write(t[0], a.ctypes.data_as(ctypes.c_void_p), nb) == 0
    assert v.vncl_tensor_write(t[1], b.ctypes.data_as(ctypes.c_void_p), nb) == 0
    assert v.vncl_gemm(ctx, 0, 0, 1.0, t[0], t[1], 0.0, t[2]) == 0
    assert v.vncl_tensor_read(t[2], c.ctypes.data_as(ctypes.c_void_p), nb) == 0
once()
ts = []
for _ in range(rep):
    s = time.perf_counter(); once(); ts.append(time.perf_counter() - s)
ts.sort()
print(ts[len(ts) // 2])
'''


def run(code, env_extra, *args):
    env = dict(os.environ)
    env.update(env_extra)
    out = subprocess.run([sys.executable, "-c", code, str(N), str(REP)] +
                         list(args), env=env, capture_output=True, text=True,
                         check=True)
    return float(out.stdout.split()[-1])


flops = 2.0 * N ** 3
blas = {"LD_LIBRARY_PATH": os.path.join(ROOT, "build", "blas")}
drop = run(NUMPY, blas)
cpu = run(NUMPY, dict(blas, VNCL_BLAS_ROUTINES="none"))
tens = run(TENSORS, {}, os.path.join(ROOT, "build", "libvncl.so"))
print("float32 %d^3, median of %d" % (N, REP))
print("  numpy through the drop-in    %8.1f GFLOP/s" % (flops / drop / 1e9))
print("  vncl_gemm on tensors (+xfer) %8.1f GFLOP/s" % (flops / tens / 1e9))
print("  numpy on the CPU BLAS alone  %8.1f GFLOP/s" % (flops / cpu / 1e9))
print("  drop-in / tensors %.2fx, drop-in / CPU BLAS %.2fx"
      % (tens / drop, cpu / drop))
