/* The gates of `vncl bench` (bench/bench_gate.c): what fails CI and what
 * is only reported. The verdicts are pure functions of a case's figures,
 * so the figures here are made up on purpose: no timing in tests. */
#include <math.h>
#include <string.h>

#include "common.h"
#include "bench.h"

static bench_case goal_case(const char *suite, const char *name, double goal,
                            double spread, double peer_spread) {
  bench_case c = {0};
  c.suite = suite;
  c.name = name;
  c.dtype = "f32";
  c.unit = "GB/s";
  c.value = 1;
  c.peer_value = 1;
  c.spread = spread;
  c.peer_spread = peer_spread;
  c.correct = true;
  c.gate = true;
  c.goal_gate = true;
  c.goal = goal;
  return c;
}

/* A case no table lists: gated at its goal, less the larger spread. */
static void test_goal_gate(void **st) {
  (void)st;
  bench_case c = goal_case("ops", "add 64Mi (no such case)", 0.8, 0.10, 0.20);
  bench_verdict v;
  bench_verdict_of(&c, 0.9, true, &v);
  assert_true(v.gated);
  assert_false(v.known);
  assert_false(v.below_goal);
  assert_false(v.fail);
  assert_true(fabs(v.gate_at - 0.8) < 1e-12);
  assert_true(fabs(v.allowance - 0.20) < 1e-12); /* the larger spread */
  /* Below the goal, within the spread: reported, not failed. */
  bench_verdict_of(&c, 0.8 * 0.81, true, &v);
  assert_true(v.below_goal);
  assert_false(v.fail);
  /* Below by more than the spread: fails. */
  bench_verdict_of(&c, 0.8 * 0.79, true, &v);
  assert_true(v.below_goal);
  assert_true(v.fail);
  /* The allowance is at least 5% and at most 50%. */
  c.spread = c.peer_spread = 0;
  bench_verdict_of(&c, 0.8 * 0.96, true, &v);
  assert_true(fabs(v.allowance - 0.05) < 1e-12);
  assert_false(v.fail);
  bench_verdict_of(&c, 0.8 * 0.94, true, &v);
  assert_true(v.fail);
  c.spread = 3.0;
  bench_verdict_of(&c, 0.8 * 0.49, true, &v);
  assert_true(fabs(v.allowance - 0.5) < 1e-12);
  assert_true(v.fail);
  /* Not a CPU: the goal is reported, nothing gated. */
  bench_verdict_of(&c, 0.01, false, &v);
  assert_false(v.gated);
  assert_true(v.below_goal);
  assert_false(v.fail);
  /* No peer measured: nothing below anything. */
  c.peer_value = 0;
  bench_verdict_of(&c, 0, true, &v);
  assert_false(v.below_goal);
  assert_false(v.fail);
}

/* A known shortfall: below its goal, gated at its floor. */
static void test_known_shortfall(void **st) {
  (void)st;
  double floor = bench_shortfall_floor("fft", "c2c 4096 (stockham)", "f32");
  assert_true(floor > 0 && floor < 1.0);
  bench_case c = goal_case("fft", "c2c 4096 (stockham)", 1.0, 0.10, 0.10);
  c.unit = "GFLOP/s";
  bench_verdict v;
  bench_verdict_of(&c, floor * 1.5, true, &v);
  assert_true(v.known);
  assert_true(v.below_goal);
  assert_false(v.fail);
  assert_true(fabs(v.gate_at - floor) < 1e-12);
  bench_verdict_of(&c, floor * 0.85, true, &v);
  assert_true(v.fail);
  /* The dtype is part of the name: f64 of the same case is not listed. */
  assert_true(bench_shortfall_floor("fft", "c2c 4096 (stockham)", "f64") == 0);
  assert_true(bench_shortfall_floor("ops", "c2c 4096 (stockham)", "f32") == 0);
  assert_true(bench_shortfall_floor(NULL, NULL, NULL) == 0);
}

/* Random numbers: no goal against memcpy, gated at their floor. */
static void test_no_goal(void **st) {
  (void)st;
  double floor = bench_shortfall_floor("ops", "random uniform 64Mi", "f32");
  assert_true(floor > 0);
  bench_case c = goal_case("ops", "random uniform 64Mi", 0, 0.1, 0.1);
  bench_verdict v;
  bench_verdict_of(&c, 0.1 * floor, true, &v);
  assert_false(v.below_goal); /* there is none */
  assert_true(v.fail);
  bench_verdict_of(&c, floor, true, &v);
  assert_false(v.fail);
  /* Neither a goal nor a floor: nothing to gate. */
  c.name = "random uniform (no such case)";
  bench_verdict_of(&c, 0.001, true, &v);
  assert_false(v.gated);
  assert_false(v.fail);
}

/* Peer gates stay strict: the ratio must reach the goal as measured. */
static void test_peer_gate(void **st) {
  (void)st;
  bench_case c = {0};
  c.suite = "gemm";
  c.name = "sgemm 1024x1024x1024";
  c.dtype = "f32";
  c.unit = "GFLOP/s";
  c.value = c.peer_value = 1;
  c.spread = c.peer_spread = 0.5;
  c.gate = true;
  bench_verdict v;
  bench_verdict_of(&c, 0.99, false, &v);
  assert_true(v.fail); /* goal 0 means 1.0; any device */
  assert_true(fabs(v.gate_at - 1.0) < 1e-12);
  c.goal = 0.8;
  bench_verdict_of(&c, 0.81, true, &v);
  assert_false(v.fail);
  bench_verdict_of(&c, 0.79, true, &v);
  assert_true(v.fail);
  c.gate = false;
  bench_verdict_of(&c, 0.01, true, &v);
  assert_false(v.fail);
}

/* What the suites ask before measuring a case again: its ratio, oriented
 * so that > 1 is better for vncl whatever the unit, and whether that ratio
 * fails the gate on the bench's device. */
static void test_gate_fails(void **st) {
  (void)st;
  bench_ctx b = {0};
  b.dev.type = VNCL_DEVICE_CPU;
  bench_case c = goal_case("ops", "add 64Mi (no such case)", 0.8, 0.1, 0.1);
  c.value = 30; /* GB/s: higher is better */
  c.peer_value = 50;
  assert_true(fabs(bench_case_ratio(&c) - 0.6) < 1e-12);
  assert_true(bench_gate_fails(&b, &c)); /* 0.6 < 0.8 x 0.9 */
  c.value = 40;
  assert_false(bench_gate_fails(&b, &c)); /* 0.8 */
  c.unit = "ms"; /* lower is better: 40 ms against 50 is 1.25x */
  assert_true(fabs(bench_case_ratio(&c) - 1.25) < 1e-12);
  assert_false(bench_gate_fails(&b, &c));
  c.value = 100;
  assert_true(bench_gate_fails(&b, &c));
  /* Not measured: no ratio, no failure; not a CPU: not gated. */
  c.peer_value = 0;
  assert_true(bench_case_ratio(&c) == 0);
  assert_false(bench_gate_fails(&b, &c));
  c.peer_value = 50;
  b.dev.type = VNCL_DEVICE_GPU;
  assert_false(bench_gate_fails(&b, &c));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_goal_gate),
      cmocka_unit_test(test_known_shortfall),
      cmocka_unit_test(test_no_goal),
      cmocka_unit_test(test_gate_fails),
      cmocka_unit_test(test_peer_gate),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
