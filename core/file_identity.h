/* Which file a path names, so that two paths the user gave can be compared as
 * files and not as strings ("r.json" and "./r.json", or a link and its target). */
#ifndef KHOST_FILE_IDENTITY_H
#define KHOST_FILE_IDENTITY_H

/* 1 when a and b name the same file: one device and inode where the path
 * exists, one folder (device and inode) and name where it does not exist yet;
 * when a folder is missing too, the same string. */
int khost__same_file(const char *a, const char *b);

#endif
