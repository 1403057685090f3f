/* mig.h: applies db/migrations/NNNN_name.sql files in order.
 *
 * All pending files run in one transaction that first takes a transaction-
 * scoped advisory lock, so that supervisors starting at once apply each
 * migration exactly once: the second waits for the first, then finds
 * nothing pending. Applied files are recorded in schema_migrations with a
 * checksum; a recorded file whose text changed is refused (migrations are
 * append-only), as is a gap or a duplicate number. Files must not contain
 * their own BEGIN/COMMIT. */
#ifndef MARS_SVC_MIG_H
#define MARS_SVC_MIG_H

#include <stddef.h>

#include "db.h"

/* Migrations in one directory: 4 digits of numbering. */
#define MIG_MAX_FILES 10000
/* A migration file over 16 MiB is data, not schema. */
#define MIG_MAX_FILE_BYTES (16 << 20)

typedef struct mig_report {
    int n_files;   /* migration files found */
    int n_applied; /* applied by this call */
    int n_unknown; /* recorded in the database but absent here (a newer program's) */
} mig_report_t;

int mig_apply(db_t *db, const char *dir, mig_report_t *rep, char *err, size_t errlen);

#endif
