#define _GNU_SOURCE
#include "CSpawn.h"

int cspawn_file_actions_addchdir(posix_spawn_file_actions_t *actions, const char *path) {
  return posix_spawn_file_actions_addchdir_np(actions, path);
}
