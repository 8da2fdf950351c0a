#ifndef CSYSTEMSHIM_H
#define CSYSTEMSHIM_H

#include <spawn.h>

/// `posix_spawn_file_actions_addchdir_np`, which glibc declares only under _GNU_SOURCE and so
/// is not visible from Swift: the child starts in `path` without the parent changing its own
/// working directory (which every thread of the run shares).
int cspawn_file_actions_addchdir(posix_spawn_file_actions_t *actions, const char *path);

/// Closes every descriptor from `lowest` up in the child (glibc's
/// `posix_spawn_file_actions_addclosefrom_np`; on Apple platforms `POSIX_SPAWN_CLOEXEC_DEFAULT`
/// does it instead and this returns 0): a child must not inherit the run's lock files, logs or
/// sockets, or an orphaned child would keep holding the run's locks.
int cspawn_file_actions_addclosefrom(posix_spawn_file_actions_t *actions, int lowest);


/// Swaps two paths in one step (`renameat2(RENAME_EXCHANGE)` on Linux, `renamex_np(RENAME_SWAP)`
/// on Apple platforms): replacing a directory this way leaves no moment without one. 0 on
/// success, else -1 with errno set.
int csystem_exchange(const char *first, const char *second);

/// The process's `environ` (on Apple platforms `*_NSGetEnviron()`, which Swift cannot name
/// directly): the array of `NAME=value` strings, each pointing into the block the process
/// started with unless `setenv` replaced it.
char **csystem_environ(void);

/// `prctl(PR_SET_DUMPABLE, 0)` on Linux (a variadic call Swift cannot make): no core file, and
/// `/proc/<pid>/` of this process readable only with `CAP_SYS_PTRACE`. Elsewhere returns 0 and
/// does nothing. 0 on success, else -1 with errno set.
int csystem_forbid_inspection(void);

#endif
