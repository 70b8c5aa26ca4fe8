/* Where plugins are found, in order: <dir of the khost binary>/plugins, each
 * entry of $KHOST_PLUGIN_PATH, the installed plugin folder, then --plugin-dir
 * folders and --plugin files. The first plugin of a name wins. A later one from
 * a later search folder (the first three) is shadowed, as in PATH; any other
 * is recorded as a duplicate failure. Relative folders and files are found from
 * the folder khost started in (start_folder.h). */
#ifndef KHOST_DISCOVER_H
#define KHOST_DISCOVER_H

#include <stdio.h>

#include "loader.h"
#include "options.h"

/* Loads everything found into reg and probes init() in a child process. */
int khost__discover(khost__registry *reg, const khost__options *o, khost__err *err);

/* Prints the --list report: plugins (name, version, language, path, ops and
 * devices), the shadowed ones and every load failure with its stage. */
void khost__discover_list(FILE *out, const khost__registry *reg);

#endif
