#ifndef CSPAWN_H
#define CSPAWN_H

#include <spawn.h>

/// `posix_spawn_file_actions_addchdir_np`, which glibc declares only under _GNU_SOURCE and so
/// is not visible from Swift: the child starts in `path` without the parent changing its own
/// working directory (which every thread of the run shares).
int cspawn_file_actions_addchdir(posix_spawn_file_actions_t *actions, const char *path);

#endif
