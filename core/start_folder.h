/* The folder khost started in. A relative path the user gave (a flag's value, a
 * folder of KHOST_PLUGIN_PATH or KHOST_SUITE_PATH) names a file from there, but
 * a plugin may chdir(): in its constructor, which runs as khost loads it, or in
 * a call, in a worker or, under --no-isolate, in khost itself. So khost notes
 * the folder before any plugin loads and opens every such path from it, never
 * from the current folder. Messages and reports show the path as it was given. */
#ifndef KHOST_START_FOLDER_H
#define KHOST_START_FOLDER_H

#include <stddef.h>

/* Notes the current folder as the start folder: once, at the start of main,
 * before any plugin loads. A folder that has no name any more (removed) is not
 * noted: relative paths then stay relative, as nothing can be found in it. */
void khost__start_folder_note(void);

/* The path by which khost opens path: path itself when it is empty or absolute,
 * when no start folder was noted or when the result would not fit in out (n
 * bytes), else the start folder, '/' and path, written into out. */
const char *khost__start_folder_path(const char *path, char *out, size_t n);

/* How many characters khost__start_folder_path put before path in its result
 * `opened` (0 when it returned path). A path built by appending to `opened` (a
 * file in that folder, a suffix) reads as the user would spell it from there on. */
size_t khost__start_folder_added(const char *opened, const char *path);

#endif
