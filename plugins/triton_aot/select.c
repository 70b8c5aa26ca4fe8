#include "select.h"

#include <stdlib.h>
#include <string.h>

#include "khost/plugin.h"
#include "message.h"

static const char NO_VARIANT[] = "no variant compiled for this op";
static const char WRONG_TYPE[] = "compiled for another element type";

const khost__triton_variant *khost__triton_find_variant(const char *name)
{
  for (int i = 0; i < khost__triton_nvariants; i++)
    if (strcmp(khost__triton_variants[i].name, name) == 0) return &khost__triton_variants[i];
  return NULL;
}

static int forced(const khost__triton_rule *rule, const khost__triton_shape *s, const char *name,
                  const khost__triton_variant *v, const khost__triton_variant **out, char *err,
                  size_t err_size)
{
  /* A mistyped name is the user's error, not the input's: an error row, never a quiet SKIP. */
  if (!v)
    return khost__triton_errorf(err, err_size, KHOST_STATUS_INTERNAL, "%s=%s names no variant of this plugin",
                                KHOST_TRITON_VARIANT_ENV, name);
  const char *why = rule->cannot_run(v, s);
  if (why)
    return khost__triton_errorf(err, err_size, KHOST_STATUS_UNSUPPORTED, "%s=%s cannot run this input: %s",
                                KHOST_TRITON_VARIANT_ENV, name, why);
  *out = v;
  return KHOST_STATUS_OK;
}

/* The name KHOST_TRITON_VARIANT gives when it decides op's variant (*named: that
 * variant, NULL for an unknown name); NULL when op is left to its rule. A forced
 * variant of another op leaves this op to its rule, so one run can force a GEMV
 * variant while the other ops keep theirs. */
static const char *forcing_name(const char *op, const khost__triton_variant **named)
{
  const char *name = getenv(KHOST_TRITON_VARIANT_ENV);
  *named = name && *name ? khost__triton_find_variant(name) : NULL;
  return name && *name && (!*named || strcmp((*named)->op, op) == 0) ? name : NULL;
}

int khost__triton_forces(const char *op)
{
  const khost__triton_variant *named;
  return forcing_name(op, &named) != NULL;
}

int khost__triton_select(const khost__triton_rule *rule, const khost__triton_shape *s,
                         const khost__triton_variant **out, char *err, size_t err_size)
{
  const khost__triton_variant *named;
  const char *name = forcing_name(rule->op, &named);
  if (name) return forced(rule, s, name, named, out, err, err_size);
  const khost__triton_variant *fallback = NULL;
  const char *why = NO_VARIANT;
  for (int i = 0; i < khost__triton_nvariants; i++) {
    const khost__triton_variant *v = &khost__triton_variants[i];
    if (strcmp(v->op, rule->op) != 0) continue;
    const char *reason = rule->cannot_run(v, s);
    if (reason) {
      /* The reason of a variant of the input's element type says more than another type's. */
      if (reason != WRONG_TYPE || why == NO_VARIANT) why = reason;
      continue;
    }
    if (rule->preferred(v, s)) {
      *out = v;
      return KHOST_STATUS_OK;
    }
    fallback = v;
  }
  if (!fallback)
    return khost__triton_errorf(err, err_size, KHOST_STATUS_UNSUPPORTED, "%s: no variant fits: %s", rule->op,
                                why);
  *out = fallback;
  return KHOST_STATUS_OK;
}

#define SM_REGISTERS     65536
#define REGISTER_UNIT    256 /* a warp's registers are allocated in multiples of this */
#define SM_PROGRAMS      32
#define SM_WARPS         64
#define THREADS_PER_WARP 32

int khost__triton_programs_per_sm(const khost__triton_variant *v)
{
  if (v->registers <= 0 || v->num_warps <= 0) return 0;
  int per_warp = (v->registers * THREADS_PER_WARP + REGISTER_UNIT - 1) / REGISTER_UNIT * REGISTER_UNIT;
  int programs = SM_REGISTERS / (per_warp * v->num_warps);
  if (programs > SM_PROGRAMS) programs = SM_PROGRAMS;
  if (programs > SM_WARPS / v->num_warps) programs = SM_WARPS / v->num_warps;
  return programs;
}

const char *khost__triton_misfit(const khost__triton_variant *v, const khost__triton_shape *s, int size_only)
{
  if (v->dtype_bits != s->dtype_bits || (!size_only && v->dtype_code != s->dtype_code)) return WRONG_TYPE;
  if (v->aligned && !s->aligned)
    return "needs 16-byte aligned pointers and rows of a multiple of 16 elements";
  return NULL;
}
