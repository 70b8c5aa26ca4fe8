/* The end-to-end tests' one harness: run the built khost as a user would
 * (KHOST_EXE, with stdout and stderr captured, in a scratch folder of the test's
 * own), then read what it printed (the table and its summary) and wrote (the
 * JSON report). Every area file of tests/e2e/ shares it. Timing is cut to the
 * minimum wherever a test is not about timing, so that each area runs in seconds. */
#ifndef KHOST_TEST_E2E_SUPPORT_H
#define KHOST_TEST_E2E_SUPPORT_H

#include <criterion/criterion.h>
#include <jansson.h>
#include <sys/types.h>

/* Smallest timing that still takes samples: these tests are about results, not speed. */
#define FAST            "--max-time", "0.002", "--warmup", "0"
#define COPY_CASE       "copy_transpose_fp16_64x100"
#define COPY_ELEMENTS   6400 /* m * n of COPY_CASE in suites/smoke.ini */
#define GEMV_CASE       "tiny_single"
#define MAX_SMOKE_CASES 64

/* One finished khost run. Owned by the outcome: free_outcome releases it. */
typedef struct outcome {
  int status; /* exit status; -1 when ended by a signal */
  int signal; /* the signal that ended it, else 0 */
  int timed_out;
  char *out, *err;
  json_t *report; /* the JSON report at report_path(), once report() has read it */
} outcome;

/* How start_with starts khost, beyond its arguments and environment; zero (or
 * NULL) starts it as a shell would, in the test's working folder. */
typedef struct launch {
  const char *folder;   /* its working folder, for relative paths */
  int closed_fd;        /* 1 or 2: that fd closed, as `>&-` or `2>&-` leaves it; 0: none */
  int unread_stdout;    /* stdout a pipe nobody reads, as `khost | head` leaves it once head has exited */
  int terminal_columns; /* > 0: stderr a terminal (a pseudo-terminal) this wide, its output kept as err */
} launch;

/* A started khost run whose output goes to files in the scratch folder. */
typedef struct running {
  pid_t pid; /* also the process group of khost and its workers */
  char out_path[600], err_path[600];
  int terminal;      /* the pseudo-terminal's master side when stderr is one, else -1 */
  int terminal_copy; /* the file at err_path, where what the terminal shows is copied */
} running;

/* One row of the printed table: its cells up to the status, and the lines under it. */
typedef struct table_row {
  int found;
  char backend[64], device[16], status[16];
  char details[4096];
} table_row;

typedef struct smoke_case {
  char name[64], op[32];
} smoke_case;

typedef struct summary {
  int rows, passed, failed, skipped, errored, crashed, timed_out;
} summary;

/* The current test's scratch folder: every TestSuite of tests/e2e/ makes it in
 * .init and removes it in .fini. */
extern char scratch[64];
void make_scratch(void);
void remove_scratch(void);

/* cr_skip_test ends a test without running its suite's .fini, so a skip
 * removes the scratch folder itself. */
#define SKIP_TEST(...)                                                                                       \
  do {                                                                                                       \
    remove_scratch();                                                                                        \
    cr_skip_test(__VA_ARGS__);                                                                               \
  } while (0)

/* The environment variable name, which meson test sets. */
const char *env(const char *name);
/* name inside the scratch folder; the caller frees it. */
char *scratch_path(const char *name);
void write_file(const char *path, const char *text);
/* The whole file, NUL-terminated; NULL when it cannot be read. Caller frees. */
char *slurp(const char *path);

/* Starts khost with args (NULL-terminated; "@file.so" stands for a fixture plugin
 * in KHOST_FIXTURE_DIR) and extra environment entries "NAME=value" (NULL-terminated,
 * may be NULL), in a process group of its own so that it and its workers can be
 * ended together. stdout and stderr go to files unless how says otherwise. */
void start_with(running *r, const char *const *extra_env, const char *const *args, const launch *how);
void start(running *r, const char *const *extra_env, const char *const *args);
/* Waits for khost to end (killing its group when it runs too long) and collects its output. */
void finish(running *r, outcome *o);
void run_with(outcome *o, const char *const *extra_env, const char *const *args, const launch *how);
void run_env(outcome *o, const char *const *extra_env, const char *const *args);
void free_outcome(outcome *o);

#define KHOST(o, ...)           run_env((o), NULL, (const char *const[]){__VA_ARGS__, NULL})
#define KHOST_ENV(o, envs, ...) run_env((o), (envs), (const char *const[]){__VA_ARGS__, NULL})
/* KHOST_ENV started as how says (a launch). */
#define KHOST_AS(o, how, envs, ...) run_with((o), (envs), (const char *const[]){__VA_ARGS__, NULL}, (how))
/* KHOST with a JSON report at report_path(), read back by report(). */
#define KHOST_JSON(o, ...) KHOST((o), __VA_ARGS__, "--json", report_path())

/* The path of the current test's JSON report, in its scratch folder. */
const char *report_path(void);
/* The JSON report of the run o, read on first use; borrowed from o. */
json_t *report(outcome *o);
json_t *load_json(const char *path);

/* The row of backend on device (the first of any device when NULL) in the table
 * block of case_name, with its detail lines. */
table_row find_device_row(const char *out, const char *case_name, const char *backend, const char *device);
table_row find_row(const char *out, const char *case_name, const char *backend);
void expect_row(const outcome *o, const char *case_name, const char *backend, const char *status);
/* How many table blocks ("case NAME | op ...") stdout holds. */
int count_cases(const char *out);
summary read_summary(const char *out);
/* The [case] names and ops of suites/smoke.ini, in file order. */
int read_smoke(smoke_case *cases, int max);

/* The row object of backend on case_name in a report, or NULL. Borrowed from doc. */
json_t *json_row(json_t *doc, const char *case_name, const char *backend);
const char *json_text(json_t *obj, const char *key);
/* The JSON row of backend on case_name has status and a message holding part. */
void expect_json_row(json_t *doc, const char *case_name, const char *backend, const char *status,
                     const char *part);

/* khost on COPY_CASE with `flag value` must stop before running anything: exit 2, message on stderr. */
void expect_refused_before_running(const char *flag, const char *value, const char *message);
/* 1 when this build's reference plugin has CUDA kernels (builds with the CUDA
 * toolkit): every case then also has a reference row on cuda, else 0. */
int reference_cuda_rows(void);

#endif
