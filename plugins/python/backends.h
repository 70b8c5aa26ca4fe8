/* The backends of the python plugin: one per Python module, read through the
 * helper's load() into khost descriptors, and a failure at stage "python" per
 * module that did not load. The modules are those KHOST_PYTHON_BACKENDS names
 * (colon-separated .py files or module names), then every *.py in the folder
 * backends/ beside the plugin, in name order (names starting with _ left out). */
#ifndef KHOST_PYTHON_BACKENDS_H
#define KHOST_PYTHON_BACKENDS_H

#include "khost/plugin.h"

/* The stage of every failure of this plugin. */
#define KHOST__PYTHON_STAGE "python"

/* Fills set (arrays owned by this file, kept for the process's life) from the
 * modules; the interpreter must be started. */
void khost__python_backends_load(const char *plugin_dir, khost_plugin_set *set);

/* Adds a failure of source at stage python (strings copied). */
void khost__python_backends_fail(khost_plugin_set *set, const char *source, const char *message);

#endif
