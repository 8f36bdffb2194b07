#include "prealloc_vfs.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "file_marker.h"

/* One open SQLite file: the shim's state, then the real VFS's file object. */
struct prealloc_file {
    sqlite3_file base;      /* base.pMethods = &shim_methods once opened */
    int fd;                 /* the real file's descriptor, -1: no preallocation */
    sqlite3_int64 reserved; /* bytes from offset 0 known to be allocated */
    sqlite3_file *real;     /* the wrapped file, stored right after this struct */
};

static sqlite3_vfs *real_vfs;
static sqlite3_vfs shim_vfs;
static sqlite3_io_methods shim_methods;
static uint64_t prealloc_unit;
static struct file_marker *marker;

#define REAL(file) (((struct prealloc_file *)(file))->real)

static size_t shim_header_size(void)
{
    size_t align = sizeof(void *) > sizeof(sqlite3_int64) ? sizeof(void *)
                                                          : sizeof(sqlite3_int64);
    return (sizeof(struct prealloc_file) + align - 1) / align * align;
}

/* Reserve units until [0, end) is covered; a failed fallocate (ENOSPC) only
 * ends the reservation: the write still runs and allocates as it would. */
static void reserve_up_to(struct prealloc_file *file, sqlite3_int64 end)
{
    if (file->fd < 0)
        return;
    while (end > file->reserved) {
        if (fallocate(file->fd, FALLOC_FL_KEEP_SIZE, (off_t)file->reserved,
                      (off_t)prealloc_unit) != 0) {
            file->reserved = end; /* do not retry for this write */
            return;
        }
        file->reserved += (sqlite3_int64)prealloc_unit;
    }
}

static int shim_close(sqlite3_file *handle)
{
    struct prealloc_file *file = (struct prealloc_file *)handle;
    file->fd = -1;
    return file->real->pMethods ? file->real->pMethods->xClose(file->real) : SQLITE_OK;
}

static int shim_read(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset)
{
    return REAL(file)->pMethods->xRead(REAL(file), buffer, amount, offset);
}

static int shim_write(sqlite3_file *handle, const void *buffer, int amount,
                      sqlite3_int64 offset)
{
    struct prealloc_file *file = (struct prealloc_file *)handle;
    reserve_up_to(file, offset + amount);
    return file->real->pMethods->xWrite(file->real, buffer, amount, offset);
}

static int shim_truncate(sqlite3_file *handle, sqlite3_int64 size)
{
    struct prealloc_file *file = (struct prealloc_file *)handle;
    int rc = file->real->pMethods->xTruncate(file->real, size);
    if (rc == SQLITE_OK && size < file->reserved)
        file->reserved = size; /* the blocks past the new size were released */
    return rc;
}

static int shim_sync(sqlite3_file *file, int flags)
{
    return REAL(file)->pMethods->xSync(REAL(file), flags);
}

static int shim_file_size(sqlite3_file *file, sqlite3_int64 *size)
{
    return REAL(file)->pMethods->xFileSize(REAL(file), size);
}

static int shim_lock(sqlite3_file *file, int level)
{
    return REAL(file)->pMethods->xLock(REAL(file), level);
}

static int shim_unlock(sqlite3_file *file, int level)
{
    return REAL(file)->pMethods->xUnlock(REAL(file), level);
}

static int shim_check_reserved_lock(sqlite3_file *file, int *out)
{
    return REAL(file)->pMethods->xCheckReservedLock(REAL(file), out);
}

static int shim_file_control(sqlite3_file *file, int op, void *arg)
{
    return REAL(file)->pMethods->xFileControl(REAL(file), op, arg);
}

static int shim_sector_size(sqlite3_file *file)
{
    return REAL(file)->pMethods->xSectorSize(REAL(file));
}

static int shim_device_characteristics(sqlite3_file *file)
{
    return REAL(file)->pMethods->xDeviceCharacteristics(REAL(file));
}

static int shim_shm_map(sqlite3_file *file, int page, int page_size, int extend,
                        void volatile **out)
{
    return REAL(file)->pMethods->xShmMap(REAL(file), page, page_size, extend, out);
}

static int shim_shm_lock(sqlite3_file *file, int offset, int n, int flags)
{
    return REAL(file)->pMethods->xShmLock(REAL(file), offset, n, flags);
}

static void shim_shm_barrier(sqlite3_file *file)
{
    REAL(file)->pMethods->xShmBarrier(REAL(file));
}

static int shim_shm_unmap(sqlite3_file *file, int delete_flag)
{
    return REAL(file)->pMethods->xShmUnmap(REAL(file), delete_flag);
}

static int shim_fetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **out)
{
    return REAL(file)->pMethods->xFetch(REAL(file), offset, amount, out);
}

static int shim_unfetch(sqlite3_file *file, sqlite3_int64 offset, void *page)
{
    return REAL(file)->pMethods->xUnfetch(REAL(file), offset, page);
}

static sqlite3_io_methods shim_methods = {
    .iVersion = 3,
    .xClose = shim_close,
    .xRead = shim_read,
    .xWrite = shim_write,
    .xTruncate = shim_truncate,
    .xSync = shim_sync,
    .xFileSize = shim_file_size,
    .xLock = shim_lock,
    .xUnlock = shim_unlock,
    .xCheckReservedLock = shim_check_reserved_lock,
    .xFileControl = shim_file_control,
    .xSectorSize = shim_sector_size,
    .xDeviceCharacteristics = shim_device_characteristics,
    .xShmMap = shim_shm_map,
    .xShmLock = shim_shm_lock,
    .xShmBarrier = shim_shm_barrier,
    .xShmUnmap = shim_shm_unmap,
    .xFetch = shim_fetch,
    .xUnfetch = shim_unfetch,
};

/* The descriptor of a file opened by SQLite's "unix" VFS. Its unixFile starts
 * with the methods, the VFS, the inode info and the descriptor (a layout
 * unchanged since SQLite 3.5); the descriptor is used only if it really is
 * the named file (same device and inode). Opening a second descriptor
 * instead would be wrong: closing it would drop the process's POSIX locks
 * that SQLite holds on the file. */
struct unix_file_head {
    const sqlite3_io_methods *methods;
    sqlite3_vfs *vfs;
    void *inode;
    int fd;
};

static int unix_descriptor(sqlite3_file *real, const char *name, sqlite3_int64 *size)
{
    const struct unix_file_head *head = (const struct unix_file_head *)real;
    struct stat by_fd, by_name;
    if (head->vfs != real_vfs || head->fd < 0 || fstat(head->fd, &by_fd) != 0 ||
        stat(name, &by_name) != 0 || by_fd.st_dev != by_name.st_dev ||
        by_fd.st_ino != by_name.st_ino)
        return -1;
    *size = (sqlite3_int64)by_fd.st_size;
    return head->fd;
}

static int shim_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *handle, int flags,
                     int *out_flags)
{
    (void)vfs;
    struct prealloc_file *file = (struct prealloc_file *)handle;
    file->base.pMethods = NULL;
    file->fd = -1;
    file->reserved = 0;
    file->real = (sqlite3_file *)((char *)handle + shim_header_size());
    int rc = real_vfs->xOpen(real_vfs, name, file->real, flags, out_flags);
    if (rc != SQLITE_OK)
        return rc;
    /* Temporary files (no name) are neither marked nor preallocated, read-only
     * opens are not preallocated. Marking comes before SQLite's first write. */
    if (name && (flags & SQLITE_OPEN_CREATE))
        file_marker_mark_name(marker, name);
    if (name && (flags & SQLITE_OPEN_READWRITE) && prealloc_unit > 0)
        file->fd = unix_descriptor(file->real, name, &file->reserved);
    file->base.pMethods = &shim_methods;
    return SQLITE_OK;
}

static int shim_delete(sqlite3_vfs *vfs, const char *name, int sync_dir)
{
    (void)vfs;
    return real_vfs->xDelete(real_vfs, name, sync_dir);
}

static int shim_access(sqlite3_vfs *vfs, const char *name, int flags, int *out)
{
    (void)vfs;
    return real_vfs->xAccess(real_vfs, name, flags, out);
}

static int shim_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *out)
{
    (void)vfs;
    return real_vfs->xFullPathname(real_vfs, name, size, out);
}

static void *shim_dl_open(sqlite3_vfs *vfs, const char *name)
{
    (void)vfs;
    return real_vfs->xDlOpen(real_vfs, name);
}

static void shim_dl_error(sqlite3_vfs *vfs, int size, char *out)
{
    (void)vfs;
    real_vfs->xDlError(real_vfs, size, out);
}

static void (*shim_dl_sym(sqlite3_vfs *vfs, void *library, const char *symbol))(void)
{
    (void)vfs;
    return real_vfs->xDlSym(real_vfs, library, symbol);
}

static void shim_dl_close(sqlite3_vfs *vfs, void *library)
{
    (void)vfs;
    real_vfs->xDlClose(real_vfs, library);
}

static int shim_randomness(sqlite3_vfs *vfs, int size, char *out)
{
    (void)vfs;
    return real_vfs->xRandomness(real_vfs, size, out);
}

static int shim_sleep(sqlite3_vfs *vfs, int microseconds)
{
    (void)vfs;
    return real_vfs->xSleep(real_vfs, microseconds);
}

static int shim_current_time(sqlite3_vfs *vfs, double *out)
{
    (void)vfs;
    return real_vfs->xCurrentTime(real_vfs, out);
}

static int shim_get_last_error(sqlite3_vfs *vfs, int size, char *out)
{
    (void)vfs;
    return real_vfs->xGetLastError ? real_vfs->xGetLastError(real_vfs, size, out) : 0;
}

static int shim_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *out)
{
    (void)vfs;
    return real_vfs->xCurrentTimeInt64(real_vfs, out);
}

int prealloc_vfs_register(uint64_t unit, struct file_marker *file_marker)
{
    if (unit == 0 && !file_marker)
        return SQLITE_OK;
    int rc = sqlite3_initialize();
    if (rc != SQLITE_OK)
        return rc;
    real_vfs = sqlite3_vfs_find("unix");
    if (!real_vfs || real_vfs->iVersion < 2 || !real_vfs->xCurrentTimeInt64)
        return SQLITE_ERROR;
    prealloc_unit = unit;
    marker = file_marker;
    shim_vfs = (sqlite3_vfs){
        .iVersion = 2,
        .szOsFile = (int)shim_header_size() + real_vfs->szOsFile,
        .mxPathname = real_vfs->mxPathname,
        .zName = "mobifrag-prealloc",
        .xOpen = shim_open,
        .xDelete = shim_delete,
        .xAccess = shim_access,
        .xFullPathname = shim_full_pathname,
        .xDlOpen = shim_dl_open,
        .xDlError = shim_dl_error,
        .xDlSym = shim_dl_sym,
        .xDlClose = shim_dl_close,
        .xRandomness = shim_randomness,
        .xSleep = shim_sleep,
        .xCurrentTime = shim_current_time,
        .xGetLastError = shim_get_last_error,
        .xCurrentTimeInt64 = shim_current_time_int64,
    };
    return sqlite3_vfs_register(&shim_vfs, 1);
}
