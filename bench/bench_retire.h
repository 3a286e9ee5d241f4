#ifndef BENCH_RETIRE_H
#define BENCH_RETIRE_H

/* Removing stores (bench_retire.c), for bench_codecs and bench_meta. bench_remove_tree removes a tree at
 * once. Where bench_fs_skips_freed_inodes(dir) (ext2/3/4 without a journal: every file creation passes over
 * the inodes freed in the last minute, or six), bench_retire_init(dir, secs) syncs and waits until secs have
 * passed since the last bench on that file system removed its stores (at least 61 s, or secs if less), after
 * which bench_retire_tree empties a store and moves it under dir/held; bench_retire_flush removes what is
 * held only where the file system runs short of inodes (then, with wait, syncs and waits secs);
 * bench_retire_end removes what is held and dir/held, without waiting, and marks when. With secs 0,
 * bench_retire_tree removes at once and the others do nothing. */
void bench_remove_tree(const char *path);
int bench_fs_skips_freed_inodes(const char *dir);
int bench_retire_init(const char *dir, double secs);
void bench_retire_tree(const char *path);
void bench_retire_flush(int wait);
void bench_retire_end(void);

#endif
