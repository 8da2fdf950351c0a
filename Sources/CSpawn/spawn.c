#define _GNU_SOURCE
#include "CSpawn.h"

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
