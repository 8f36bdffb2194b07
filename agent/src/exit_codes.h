#ifndef MOBIFRAG_EXIT_CODES_H
#define MOBIFRAG_EXIT_CODES_H

/* Exit statuses are part of the interface: the pipeline tells a full file
 * system (2) and an unsupported file system (3) apart from plain failures. */
enum exit_code {
    EXIT_OK = 0,
    EXIT_FAILURE_GENERIC = 1,
    EXIT_WORKLOAD_IO = 2,
    EXIT_FIEMAP_UNSUPPORTED = 3,
    EXIT_USAGE = 64,    /* EX_USAGE from sysexits.h, which not every libc ships */
    EXIT_DATA_ERROR = 65 /* EX_DATAERR: a malformed input file (replay trace) */
};

#endif
