/* core/cuda_none.c: a build without CUDA says so from every entry point. */
#include <criterion/criterion.h>
#include <string.h>

#include "cuda.h"

#define WHY "built without CUDA support"

Test(cuda_none, no_device_is_available)
{
  char why[128] = "";
  cr_assert_eq(khost__cuda_available(0, why, sizeof why), 0);
  cr_assert_str_eq(why, WHY);
}

static int call_nothing(void *arg, int i)
{
  return 0;
}

typedef int (*entry_fn)(khost__err *err);

static int init(khost__err *err)
{
  khost__device_info info;
  return khost__cuda_init(0, &info, err);
}

static int alloc(khost__err *err)
{
  void *p = (void *)1;
  int rc = khost__cuda_malloc(&p, 16, err);
  cr_assert_null(p);
  return rc;
}

static int memory_free(khost__err *err)
{
  size_t bytes = 1;
  int rc = khost__cuda_memory_free(&bytes, err);
  cr_assert_eq(bytes, 0);
  return rc;
}

static int upload(khost__err *err)
{
  char host[4] = "abc";
  return khost__cuda_upload(host, host, sizeof host, err);
}

static int download(khost__err *err)
{
  char host[4] = "abc";
  return khost__cuda_download(host, host, sizeof host, err);
}

static int set(khost__err *err)
{
  char host[4] = "abc";
  return khost__cuda_memset(host, 1, sizeof host, err);
}

static int copy(khost__err *err)
{
  double gbps = -1;
  int rc = khost__cuda_measure_copy(&gbps, err);
  cr_assert_eq(gbps, 0.0);
  return rc;
}

static int empty_call(khost__err *err)
{
  double seconds = -1;
  int rc = khost__cuda_measure_empty_call(1, &seconds, err);
  cr_assert_eq(seconds, 0.0);
  return rc;
}

static int time_calls(khost__err *err)
{
  double seconds = -1, sm_mhz = -1;
  int status = -1;
  int rc = khost__cuda_time(call_nothing, NULL, 0, 1, 1, &seconds, &sm_mhz, &status, err);
  cr_assert_eq(seconds, 0.0);
  cr_assert_eq(sm_mhz, 0.0);
  return rc;
}

static int capture(khost__err *err)
{
  khost__cuda_graph *graph = (khost__cuda_graph *)1;
  size_t nodes = 1;
  int status = -1;
  int rc = khost__cuda_graph_capture(call_nothing, NULL, 1, &graph, &nodes, &status, err);
  cr_assert_null(graph);
  cr_assert_eq(nodes, 0);
  return rc;
}

/* No graph can exist in this build, so NULL stands in for one. */
static int replay(khost__err *err)
{
  return khost__cuda_graph_run(NULL, err);
}

static int time_graph(khost__err *err)
{
  double seconds = -1, sm_mhz = -1;
  int rc = khost__cuda_graph_time(NULL, 1, &seconds, &sm_mhz, err);
  cr_assert_eq(seconds, 0.0);
  cr_assert_eq(sm_mhz, 0.0);
  return rc;
}

Test(cuda_none, every_fallible_entry_fails_with_the_reason)
{
  static const struct {
    const char *name;
    entry_fn fn;
  } entries[] = {
      {"init", init},
      {"malloc", alloc},
      {"memory_free", memory_free},
      {"upload", upload},
      {"download", download},
      {"memset", set},
      {"sync", khost__cuda_sync},
      {"measure_copy", copy},
      {"measure_empty_call", empty_call},
      {"time", time_calls},
      {"graph_capture", capture},
      {"graph_run", replay},
      {"graph_time", time_graph},
  };
  for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
    khost__err err = {""};
    cr_assert_eq(entries[i].fn(&err), KHOST__E_CUDA, "%s", entries[i].name);
    cr_assert_str_eq(err.msg, WHY, "%s", entries[i].name);
  }
  cr_assert_null(khost__cuda_stream());
}
