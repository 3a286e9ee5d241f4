/* The paths stored in datasets of object references follow moves and deletes
 * (ncztr_refsync.c): the file hooks refs_before / refs_after / refs_drop of the model. */
#ifndef NCZTR_REFSYNC_H
#define NCZTR_REFSYNC_H

#include "ncztr_model_internal.h"

/* Before a move or delete in f: the ids every dataset of object references names now, read
 * from their paths (*snap NULL when f has none). */
herr_t ncztr_refsync_before(ncztr_file *f, void **snap);
/* Before moving o to new_name under new_parent: FAIL (nothing changed yet) when a path the
 * move lengthens would no longer fit a dataset's fixed-width text. */
herr_t ncztr_refsync_check_move(const void *snap, const ncztr_obj *o, const ncztr_obj *new_parent,
                                const char *new_name);
/* After it: the elements whose objects' paths changed are written again (a deleted
 * object's as the null reference); frees snap. */
herr_t ncztr_refsync_after(ncztr_file *f, void *snap);
/* Frees snap, writing nothing (the move or delete failed). */
void ncztr_refsync_drop(void *snap);

#endif
