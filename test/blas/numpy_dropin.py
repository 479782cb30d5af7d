"""NumPy through the drop-in BLAS: matmul, dot and A @ A.T in float32,
float64 and complex128 against float64 (or complex128) references computed
with NumPy's own loops (einsum with optimize=False does not call BLAS).
Run with LD_LIBRARY_PATH=build/blas VNCL_BLAS_MIN_FLOPS=0
VNCL_BLAS_VERBOSE=1: scripts/check-blas.sh checks that the verbose summary
shows the products on the device. Prints "N passed, N failed" last."""
import sys

import numpy as np

rng = np.random.default_rng()
passed = 0
failed = 0


def ref_matmul(a, b):
    wide = np.complex128 if np.iscomplexobj(a) else np.float64
    return np.einsum("ik,kj->ij", a.astype(wide), b.astype(wide),
                     optimize=False)


def check(name, got, want, k, eps):
    global passed, failed
    got = np.asarray(got)
    # error bound of a length-k dot product, relative to sum |a||b|
    bound = 4 * k * eps
    scale = np.maximum(np.abs(want), 1.0)
    bad = ~np.isfinite(got) | (np.abs(got - want) > bound * scale * 4)
    if got.shape != want.shape or bad.any():
        failed += 1
        print("FAIL %s: shape %s want %s, %d elements off, max err %g"
              % (name, got.shape, want.shape, int(bad.sum()),
                 float(np.nanmax(np.abs(got - want)))))
    else:
        passed += 1
        print("ok   %s" % name)


for dt, eps in ((np.float32, 2.0 ** -24), (np.float64, 2.0 ** -53),
                (np.complex128, 2.0 ** -53)):
    m, k, n = (int(x) for x in rng.integers(40, 200, size=3))
    def draw(*shape):
        x = rng.standard_normal(shape)
        if dt == np.complex128:
            x = x + 1j * rng.standard_normal(shape)
        return x.astype(dt)
    a, b = draw(m, k), draw(k, n)
    name = np.dtype(dt).name
    check("%s matmul %dx%d @ %dx%d" % (name, m, k, k, n), a @ b,
          ref_matmul(a, b), k, eps)
    check("%s dot" % name, np.dot(a, b), ref_matmul(a, b), k, eps)
    # transposed operands (non-contiguous views)
    at = draw(k, m)
    check("%s matmul A.T @ B" % name, at.T @ b, ref_matmul(at.T, b), k, eps)
    # A @ A.T: NumPy calls syrk for it
    check("%s A @ A.T" % name, a @ a.T, ref_matmul(a, a.T), k, eps)
    # matrix-vector and vector dot go to the CPU BLAS
    v = draw(k)
    check("%s matvec" % name, a @ v,
          ref_matmul(a, v.reshape(k, 1)).reshape(m), k, eps)

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
