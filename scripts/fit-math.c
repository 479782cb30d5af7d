/*
 * fit-math.c: the polynomial fits behind elementwise.cl's own tanh and gelu
 * (f32 compute). Reproduces their coefficients and the error of each
 * polynomial as the kernel evaluates it (f32 Horner with fma).
 *
 *   cc -O2 -o /tmp/fit-math scripts/fit-math.c -lm && /tmp/fit-math
 *
 * Each fit interpolates the function at the Chebyshev nodes of its
 * interval in long double (Newton's divided differences, expanded to
 * monomials) and rounds the coefficients to f32:
 *   tanh  (tanh(a) - a) / a^3 in w = a^2, a in [0, 0.55], degree 4
 *   erf   erf(z) / z in w = z^2, z in [0, 0.75], degree 5
 *   erfc  erfc(z) e^(z^2) / t in t = 2 / (2 + z), z in [0.75, 11.4],
 *         degree 7 (gelu clamps |x| at 16: z <= 11.32)
 */
#include <math.h>
#include <stdio.h>

typedef long double ld;

static ld f_tanh(ld w) {
  ld a = sqrtl(w);
  return a == 0 ? -1.0L / 3 : (tanhl(a) - a) / (a * a * a);
}
static ld f_erf(ld w) {
  ld z = sqrtl(w);
  return z == 0 ? 2 / sqrtl(acosl(-1)) : erfl(z) / z;
}
static ld f_erfc(ld t) {
  ld z = 2 / t - 2;
  return erfcl(z) * expl(z * z) / t;
}

/* Interpolate f at n = deg + 1 Chebyshev nodes of [a, b]; monomial
 * coefficients, rounded to f32, in c[0..deg]. */
static void fit(ld (*f)(ld), int deg, ld a, ld b, float *c) {
  ld x[16], d[16], m[16] = {0};
  int n = deg + 1;
  for (int k = 0; k < n; k++) {
    x[k] = (a + b) / 2 + (b - a) / 2 * cosl(acosl(-1) * (k + 0.5L) / n);
    d[k] = f(x[k]);
  }
  for (int j = 1; j < n; j++)
    for (int k = n - 1; k >= j; k--)
      d[k] = (d[k] - d[k - 1]) / (x[k] - x[k - j]);
  for (int k = n - 1; k >= 0; k--) { /* m = m (X - x[k]) + d[k] */
    for (int j = n - 1; j > 0; j--) m[j] = m[j - 1] - x[k] * m[j];
    m[0] = -x[k] * m[0] + d[k];
  }
  for (int k = 0; k < n; k++) c[k] = (float)m[k];
}

static float horner(const float *c, int deg, float v) {
  float r = c[deg];
  for (int k = deg - 1; k >= 0; k--) r = fmaf(r, v, c[k]);
  return r;
}

static void report(const char *name, ld (*f)(ld), int deg, ld a, ld b) {
  float c[16];
  fit(f, deg, a, b, c);
  double worst = 0;
  for (int i = 0; i <= 100000; i++) {
    float v = (float)(a + (b - a) * i / 100000);
    ld ref = f(v);
    double e = (double)fabsl((horner(c, deg, v) - ref) / ref);
    if (e > worst) worst = e;
  }
  printf("%s: degree %d on [%.6Lg, %.6Lg], max relative error %.3g\n", name,
         deg, a, b, worst);
  for (int k = deg; k >= 0; k--) printf("  c%d = %af\n", k, c[k]);
}

int main(void) {
  report("tanh P(w)", f_tanh, 4, 0, 0.55L * 0.55L);
  report("erf P(w)", f_erf, 5, 0, 0.75L * 0.75L);
  report("erfc Q(t)", f_erfc, 7, 2 / (2 + 11.4L), 2 / 2.75L);
  return 0;
}
