/* A folder named on the command line (--plugin-dir, --dump): unlike the search
 * paths, it must exist, be a folder, and allow what the flag does with it. */
#ifndef KHOST_FOLDER_H
#define KHOST_FOLDER_H

#include "error.h"

/* 0 when dir (from the start folder, start_folder.h) is a folder that access()
 * grants mode (R_OK, W_OK, X_OK bits), else KHOST__E_CONFIG with "FLAG DIR:
 * reason" in err. */
int khost__folder_check(const char *flag, const char *dir, int mode, khost__err *err);

#endif
