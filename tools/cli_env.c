/* Every environment variable the library, the vncl command, vncl-bench and
 * the drop-in BLAS read, for `vncl --help` (README.md, "Environment
 * variables", has the full story). test_cli checks this table against the
 * names grep'd from the sources at build time, both ways. */
#include <stddef.h>

#include "cli.h"

const cli_env_var cli_env[] = {
    {"VNCL_DEVICE", "device selector: index, P:D, gpu/cpu/accelerator, part "
                    "of a name; a group: all, 0,1 (default: the first)"},
    {"VNCL_MEMORY_LIMIT", "cap on a context's device memory: bytes, 512M, 2G"},
    {"VNCL_CACHE_DIR", "compiled-kernel cache folder; off disables (default "
                       "$XDG_CACHE_HOME/vncl or ~/.cache/vncl)"},
    {"VNCL_KERNEL_DIR", "read kernel sources from this folder (development; "
                        "loads code by design)"},
    {"VNCL_LOG", "error, warn, info or debug to stderr (default: silent)"},
    {"VNCL_GEMM_BACKEND", "own, clblast, ref or auto (default auto)"},
    {"VNCL_GEMM_PROBE", "0/off, 1/on, force: time ours against CLBlast on an "
                        "untuned device (default 1)"},
    {"VNCL_GROUP_STEP_FLOPS", "device groups: flops per step of a split "
                              "GEMM (tests, tuning)"},
    {"VNCL_TUNING_DB", "tuning database file (default "
                       "$XDG_DATA_HOME/vncl/tuning.json)"},
    {"VNCL_STAGING_BYTES", "most pinned host memory for staging (default "
                           "64 MiB)"},
    {"VNCL_STAGING_CHUNK", "size of one pinned staging chunk (default 16 MiB)"},
    {"VNCL_TRANSFER_PATH", "direct, staged, map or auto (default auto)"},
    {"VNCL_STAGING_VIA", "chunks, tensor or auto: what path=staged copies "
                         "through (default auto: the table)"},
    {"VNCL_TENSOR_MEMORY", "svm, buffer or auto: tensors in fine-grained SVM "
                           "(default auto: on CPU devices that have it)"},
    {"VNCL_HUGE_PAGES", "0: SVM tensors of 8 MiB and more stay on ordinary "
                        "pages (default: advised onto huge pages, Linux)"},
    {"VNCL_NATIVE_FLOAT_WIDTH", "1, 2, 4, 8 or 16: the vector width that "
                                "picks the CPU rows (default: the "
                                "device's)"},
    {"VNCL_HOST_COPY", "memcpy, bounce or auto: how host copies are made "
                       "(default auto: measured)"},
    {"VNCL_FFT_BACKEND", "vncl, clfft or auto (default auto)"},
    {"VNCL_PROFILE", "1: a per-operation profile on stderr at context "
                     "destruction"},
    {"VNCL_NVML_LIBRARY", "NVML file for NVIDIA telemetry; off disables "
                          "(loads code by design)"},
    {"VNCL_ROCM_SMI_LIBRARY", "ROCm SMI file for AMD telemetry; off "
                              "disables (loads code by design)"},
    {"VNCL_LEVEL_ZERO_LIBRARY", "Level Zero loader for Intel telemetry; off "
                                "disables (loads code by design)"},
    {"VNCL_BLAS_MIN_FLOPS", "drop-in BLAS: smallest Level-3 call sent to the "
                            "device"},
    {"VNCL_BLAS_ROUTINES", "drop-in BLAS: routines that may use the device "
                           "(all,-trsm,...)"},
    {"VNCL_BLAS_CPU_LIBRARY", "drop-in BLAS: the CPU BLAS file (loads code "
                              "by design)"},
    {"VNCL_BLAS_CONFIG", "drop-in BLAS: a settings file (KEY value lines)"},
    {"VNCL_BLAS_VERBOSE", "drop-in BLAS: 1 prints per-routine counts at exit"},
    {"VNCL_TUNE_TEST_FAULTS", "tests only: the autotuner adds candidates "
                              "that crash and hang"},
    {"VNCL_TUNE_WORKER_STDERR", "debugging: set, autotune workers keep "
                                "stderr (else /dev/null)"},
    {"VNCL_BENCH_MULTI_CHILD", "internal: set by vncl bench in the child run "
                               "of the multi suite"},
    {"VNCL_BENCH_BLAS_CORE", "internal: set by vncl bench when it restarts "
                             "itself with OPENBLAS_CORETYPE"},
    {"XDG_CACHE_HOME", "where the default cache folder lives"},
    {"XDG_DATA_HOME", "where the default tuning database lives"},
    {"HOME", "the defaults' fallback (~/.cache/vncl, ~/.local/share/vncl)"},
    {"OCL_ICD_VENDORS", "the ICD loader's driver folder (vncl doctor checks "
                        "it; default /etc/OpenCL/vendors)"},
    {"OPENBLAS_CORETYPE", "the OpenBLAS kernels vncl bench's peer runs; "
                          "unset, the bench sets the best this CPU runs "
                          "when OpenBLAS chose older ones"},
    {"POCL_AFFINITY", "1 pins PoCL's worker i to CPU i, 0 leaves them "
                      "free; unset, vncl sets 1 where the process may run "
                      "on every CPU (docs/portability.md)"},
    {"VNCL_POCL_AFFINITY", "0 (or off): vncl leaves POCL_AFFINITY unset, "
                           "PoCL's workers to the scheduler"},
    {"POCL_CPU_MAX_CU_NUM", "PoCL's worker count; when set, vncl leaves "
                            "POCL_AFFINITY alone"},
    {"POCL_DEVICES", "PoCL's device list; vncl bench --suite multi sets "
                     "\"pthread pthread\" when unset"},
    {NULL, NULL}};
