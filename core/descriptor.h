/* The check of a plugin's descriptor: every field the host will read, every
 * string within its bound, one kernel per (op, device). The descriptor is
 * plugin-owned memory that may hold anything (an nkernels larger than its array,
 * a string without its NUL, a pointer to nowhere), so the loader runs the check in
 * a child process: a read that crashes there costs that plugin only, and the
 * parent reads nothing of a descriptor before the check has passed. */
#ifndef KHOST_DESCRIPTOR_H
#define KHOST_DESCRIPTOR_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "khost/plugin.h"
#include "loader.h"

/* The longest kernel op name and the longest version, language and description
 * the host accepts, in characters. A string is read up to one byte past its
 * bound and no further: without a NUL by then it is too long. */
#define KHOST__OP_NAME_MAX     63
#define KHOST__PLUGIN_TEXT_MAX 255

/* A field is readable when the struct, as the plugin compiled it, reaches past it. */
#define KHOST__HAS_FIELD(ptr, type, field)                                                                   \
  ((ptr)->struct_size >= offsetof(type, field) + sizeof((ptr)->field))

/* The part of a descriptor being read, in the order the check reads them. */
typedef enum khost__descriptor_part {
  KHOST__PART_HEADER,      /* magic, ABI version, struct_size */
  KHOST__PART_NAME,        /* the plugin name */
  KHOST__PART_VERSION,     /* the version string */
  KHOST__PART_LANGUAGE,    /* the language string */
  KHOST__PART_DESCRIPTION, /* the description string */
  KHOST__PART_KERNEL_LIST, /* kernels[kernel], a pointer in the plugin's array */
  KHOST__PART_KERNEL       /* *kernels[kernel] and its op name */
} khost__descriptor_part;

/* Where a check is: written before each read, so that whoever sees the check
 * die knows what it was reading. */
typedef struct khost__descriptor_progress {
  int32_t part;     /* khost__descriptor_part */
  int32_t kernel;   /* under the KERNEL parts: the kernel's index */
  int32_t nkernels; /* under the KERNEL parts: the descriptor's nkernels */
} khost__descriptor_progress;

/* Checks d in this process, recording in *at what it reads. Returns the stage
 * that refuses it with the reason in why (n bytes), or KHOST__STAGE_COUNT when
 * it is good. Reads each string up to its bound and nothing outside the structs'
 * struct_size; for an nkernels larger than the array, it cannot know. */
khost__load_stage khost__descriptor_check(const khost_plugin *d, khost__descriptor_progress *at, char *why,
                                          size_t n);

/* khost__descriptor_check in a child process. *stage and why as there; a check
 * that died is refused at the stage of what it was reading, with what that was
 * and how the child ended. Only failing to start the child is an error. */
int khost__descriptor_check_isolated(const khost_plugin *d, khost__load_stage *stage, char *why, size_t n,
                                     khost__err *err);

#endif
