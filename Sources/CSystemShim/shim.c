#define _GNU_SOURCE
#include "CSystemShim.h"

#include <fcntl.h>
#include <stdio.h>
#if defined(__APPLE__)
#include <crt_externs.h>
#include <stdio.h>
#else
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/fs.h>
#endif

int cspawn_file_actions_addchdir(posix_spawn_file_actions_t *actions, const char *path) {
  return posix_spawn_file_actions_addchdir_np(actions, path);
}

int cspawn_file_actions_addclosefrom(posix_spawn_file_actions_t *actions, int lowest) {
#if defined(__APPLE__)
  (void)actions;
  (void)lowest;
  return 0;
#else
  return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
#endif
}

int csystem_exchange(const char *first, const char *second) {
#if defined(__APPLE__)
  return renamex_np(first, second, RENAME_SWAP);
#else
  return (int)syscall(SYS_renameat2, AT_FDCWD, first, AT_FDCWD, second, RENAME_EXCHANGE);
#endif
}

char **csystem_environ(void) {
#if defined(__APPLE__)
  return *_NSGetEnviron();
#else
  extern char **environ;
  return environ;
#endif
}

int csystem_forbid_inspection(void) {
#if defined(__linux__)
  return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
#else
  return 0;
#endif
}
