//! The unsafe layer of the disk benchmark, and nothing more: every `unsafe` block of the disk code
//! lives in this file, behind types and functions that are safe to call.
//!
//! It holds the Linux AIO queue ([`Queue`]: `io_setup`, `io_submit`, `io_getevents`, and
//! `io_destroy` on drop), the aligned buffers O_DIRECT needs ([`AlignedBuf`]), and three one-call
//! wrappers the benchmark uses around the test file: [`statvfs`], [`fallocate`] and
//! [`drop_cache`] (`posix_fadvise`). What to read or write, when, and what the timings mean is
//! decided in the parent module; nothing here knows about patterns, ramps or reports.
//!
//! The AIO system calls are made through `libc::syscall` with the structures of the kernel's
//! `linux/aio_abi.h` (not glibc's POSIX AIO, which runs requests on threads). The contracts
//! relied on are the ones in the Linux man pages `io_setup(2)`, `io_submit(2)`,
//! `io_getevents(2)` and `io_destroy(2)`.
#![allow(unsafe_code)]

use std::alloc::{Layout, alloc_zeroed, dealloc, handle_alloc_error};
use std::fs::File;
use std::io;
use std::marker::PhantomData;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::time::Duration;

/// The alignment of buffer addresses for O_DIRECT (the common logical block size).
const ALIGN: usize = 4096;

// ---- aligned buffers ----

/// A zeroed heap buffer aligned to 4096 bytes, as O_DIRECT wants, and at least that long.
pub(super) struct AlignedBuf {
    ptr: *mut u8,
    layout: Layout,
}

// SAFETY: the buffer is plain memory owned by this value alone; nothing else aliases it, so
// moving it to another thread is no different from moving a `Vec<u8>`.
unsafe impl Send for AlignedBuf {}

impl AlignedBuf {
    /// A zeroed buffer of `len` bytes (4096 at least), its address a multiple of 4096.
    pub(super) fn zeroed(len: usize) -> AlignedBuf {
        let layout = Layout::from_size_align(len.max(ALIGN), ALIGN)
            .unwrap_or_else(|_| Layout::new::<[u8; ALIGN]>());
        // SAFETY: alloc_zeroed needs a layout of non-zero size; this one has ALIGN bytes at least.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            handle_alloc_error(layout);
        }
        AlignedBuf { ptr, layout }
    }

    /// The buffer's length in bytes.
    pub(super) fn len(&self) -> usize {
        self.layout.size()
    }

    /// The buffer's bytes, to fill before a write or to read after a read.
    pub(super) fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: ptr points to layout.size() bytes, allocated zeroed (so initialised) and owned
        // by self; the &mut self borrow makes this the only reference for its lifetime. A buffer
        // lent to the kernel sits inside a `Queue`, which hands out no slice while it is in use.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.layout.size()) }
    }

    /// The address the kernel is given for a request on this buffer.
    fn addr(&self) -> u64 {
        self.ptr as u64
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: ptr was allocated in `zeroed` with this very layout, and is freed only here.
        unsafe { dealloc(self.ptr, self.layout) };
    }
}

// ---- Linux AIO ----

const IOCB_CMD_PREAD: u16 = 0;
const IOCB_CMD_PWRITE: u16 = 1;

/// `struct iocb` of `linux/aio_abi.h`: one request as io_submit reads it.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Iocb {
    aio_data: u64,
    #[cfg(target_endian = "little")]
    aio_key: u32,
    aio_rw_flags: i32,
    #[cfg(target_endian = "big")]
    aio_key: u32,
    aio_lio_opcode: u16,
    aio_reqprio: i16,
    aio_fildes: u32,
    aio_buf: u64,
    aio_nbytes: u64,
    aio_offset: i64,
    aio_reserved2: u64,
    aio_flags: u32,
    aio_resfd: u32,
}

/// `struct io_event` of `linux/aio_abi.h`: one completion as io_getevents writes it.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct IoEvent {
    data: u64,
    obj: u64,
    res: i64,
    res2: i64,
}

const _: () = assert!(std::mem::size_of::<Iocb>() == 64);
const _: () = assert!(std::mem::size_of::<IoEvent>() == 32);

/// An AIO context id from io_setup; dropping it destroys the context.
struct Context {
    id: libc::c_ulong,
}

impl Context {
    fn setup(depth: usize) -> io::Result<Context> {
        let mut id: libc::c_ulong = 0;
        // SAFETY: io_setup writes one aio_context_t (an unsigned long) through the pointer, which
        // must point to zero (io_setup(2)); id is zero and lives on this stack frame for the call.
        let r = unsafe {
            libc::syscall(
                libc::SYS_io_setup,
                depth as libc::c_long,
                &mut id as *mut libc::c_ulong,
            )
        };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Context { id })
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: id came from io_setup and is destroyed only here. io_destroy cancels the
        // requests still outstanding and blocks until those it cannot cancel complete
        // (io_destroy(2)), so once it returns the kernel touches no buffer of ours again.
        unsafe { libc::syscall(libc::SYS_io_destroy, self.id) };
    }
}

/// Whether this process may use Linux AIO at all: io_setup is refused under some seccomp
/// profiles, and once the host's `fs.aio-max-nr` is used up.
pub(super) fn available() -> bool {
    Context::setup(1).is_ok()
}

/// One read or write for [`Queue::submit`].
#[derive(Debug, Clone, Copy)]
pub(super) struct Request {
    /// The slot whose buffer the request uses; the slot's number comes back in its completion.
    pub slot: usize,
    /// Write the buffer to the file (else read into it).
    pub write: bool,
    /// Where in the file, bytes.
    pub offset: u64,
    /// How many bytes; no more than the slot's buffer holds.
    pub len: usize,
}

/// One finished request, from [`Queue::reap`].
#[derive(Debug, Clone, Copy)]
pub(super) struct Completion {
    /// The slot the request used, free again for a new request.
    pub slot: usize,
    /// What the request returned: bytes transferred, or a negative errno.
    pub res: i64,
}

/// A Linux AIO context on one file with a fixed set of slots, each an [`AlignedBuf`] that at
/// most one request uses at a time.
///
/// The queue owns the buffers and the request blocks the kernel is given, and lends out a
/// buffer only while no request is using it, so no safe use can free or touch memory the kernel
/// is still reading or writing. Dropping the queue waits for every request still in flight.
pub(super) struct Queue<'f> {
    // Declared first so it is dropped first: its drop (io_destroy) waits for every request in
    // flight, and only then are the request blocks and buffers below freed.
    ctx: Context,
    /// The file's descriptor, kept open for as long as the queue lives by the borrow below.
    fd: u32,
    file: PhantomData<&'f File>,
    iocbs: Box<[Iocb]>,
    bufs: Vec<AlignedBuf>,
    busy: Vec<bool>,
    events: Vec<IoEvent>,
    ptrs: Vec<*mut Iocb>,
    done: Vec<Completion>,
}

impl<'f> Queue<'f> {
    /// A context on `file` with one slot per buffer: as many requests in flight as buffers.
    pub(super) fn new(file: &'f File, bufs: Vec<AlignedBuf>) -> io::Result<Queue<'f>> {
        let depth = bufs.len();
        let ctx = Context::setup(depth)?;
        let fd = u32::try_from(file.as_raw_fd()).map_err(|_| io::Error::other("bad fd"))?;
        Ok(Queue {
            ctx,
            fd,
            file: PhantomData,
            iocbs: vec![Iocb::default(); depth].into_boxed_slice(),
            bufs,
            busy: vec![false; depth],
            events: vec![IoEvent::default(); depth],
            ptrs: Vec::with_capacity(depth),
            done: Vec::with_capacity(depth),
        })
    }

    /// The buffer of a slot no request is using; an error for a slot in flight or out of range.
    pub(super) fn buffer_mut(&mut self, slot: usize) -> io::Result<&mut [u8]> {
        if self.busy.get(slot) != Some(&false) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("AIO slot {slot} is in flight or out of range"),
            ));
        }
        Ok(self.bufs[slot].as_mut_slice())
    }

    /// Submits the requests in order; returns how many the kernel took (the first ones), which
    /// may be fewer than asked. Refuses, before the kernel sees anything, a slot out of range,
    /// in flight or named twice, and a length beyond the slot's buffer.
    pub(super) fn submit(&mut self, requests: &[Request]) -> io::Result<usize> {
        for (i, r) in requests.iter().enumerate() {
            let fits =
                r.slot < self.bufs.len() && !self.busy[r.slot] && r.len <= self.bufs[r.slot].len();
            if !fits {
                for taken in &requests[..i] {
                    self.busy[taken.slot] = false;
                }
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "AIO request on slot {} refused: out of range, in flight, named twice \
                         or longer than its buffer",
                        r.slot
                    ),
                ));
            }
            self.busy[r.slot] = true;
            self.iocbs[r.slot] = Iocb {
                aio_data: r.slot as u64,
                aio_lio_opcode: if r.write {
                    IOCB_CMD_PWRITE
                } else {
                    IOCB_CMD_PREAD
                },
                aio_fildes: self.fd,
                aio_buf: self.bufs[r.slot].addr(),
                aio_nbytes: r.len as u64,
                aio_offset: r.offset as i64,
                ..Iocb::default()
            };
        }
        // Every pointer comes from one base pointer taken after the writes above, so none is
        // invalidated by a later borrow of the slice; every slot was checked in range.
        let base = self.iocbs.as_mut_ptr();
        self.ptrs.clear();
        self.ptrs
            .extend(requests.iter().map(|r| base.wrapping_add(r.slot)));
        let result = loop {
            // SAFETY: each pointer points to an initialised Iocb in self.iocbs. Each names this
            // queue's open file and the buffer of its own slot, with a length that fits the
            // buffer; no other request uses that slot, and no slice of the buffer is lent out
            // while the slot is busy. The request blocks and buffers are owned by self and freed
            // only after the context's drop has waited for every request (field order above).
            let r = unsafe {
                libc::syscall(
                    libc::SYS_io_submit,
                    self.ctx.id,
                    self.ptrs.len() as libc::c_long,
                    self.ptrs.as_mut_ptr(),
                )
            };
            if r >= 0 {
                break Ok(r as usize);
            }
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                break Err(e);
            }
        };
        // The requests the kernel did not take leave their slots free.
        let took = *result.as_ref().unwrap_or(&0);
        for r in &requests[took.min(requests.len())..] {
            self.busy[r.slot] = false;
        }
        result
    }

    /// Waits for at least one completion, or the timeout, and returns those that arrived (none
    /// on a timeout or a signal). Their slots are free again.
    pub(super) fn reap(&mut self, timeout: Duration) -> io::Result<&[Completion]> {
        let ts = libc::timespec {
            tv_sec: timeout.as_secs() as libc::time_t,
            tv_nsec: timeout.subsec_nanos() as libc::c_long,
        };
        // SAFETY: events has room for events.len() io_events, the most io_getevents is told to
        // write; ts lives on this stack frame for the call; ctx.id came from io_setup.
        let r = unsafe {
            libc::syscall(
                libc::SYS_io_getevents,
                self.ctx.id,
                1 as libc::c_long,
                self.events.len() as libc::c_long,
                self.events.as_mut_ptr(),
                &ts as *const libc::timespec,
            )
        };
        self.done.clear();
        if r < 0 {
            let e = io::Error::last_os_error();
            return if e.kind() == io::ErrorKind::Interrupted {
                Ok(&self.done)
            } else {
                Err(e)
            };
        }
        for ev in &self.events[..r as usize] {
            let slot = ev.data as usize;
            if let Some(busy) = self.busy.get_mut(slot) {
                *busy = false;
            }
            self.done.push(Completion { slot, res: ev.res });
        }
        Ok(&self.done)
    }
}

// ---- other system calls on the test file ----

/// Space free to unprivileged users and total size of the filesystem holding `dir`, bytes, from
/// `statvfs(3)`; `None` where the call fails.
pub(super) fn statvfs(dir: &Path) -> Option<(u64, u64)> {
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs is plain old data (integers only); all zeroes is a valid value.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: c is a NUL-terminated path and st a valid out-pointer, both alive for the call.
    let r = unsafe { libc::statvfs(c.as_ptr(), &mut st) };
    if r != 0 {
        return None;
    }
    let frsize = st.f_frsize as u64;
    Some((st.f_bavail as u64 * frsize, st.f_blocks as u64 * frsize))
}

/// Allocates `len` bytes of `file` on the device (`fallocate(2)`, mode 0).
pub(super) fn fallocate(file: &File, len: u64) -> io::Result<()> {
    // SAFETY: a plain system call on a descriptor the &File keeps open; no memory is passed.
    let r = unsafe { libc::fallocate(file.as_raw_fd(), 0, 0, len as libc::off_t) };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Asks the kernel to drop `file`'s pages from the page cache (`POSIX_FADV_DONTNEED`); a
/// failure only means the pages stay cached.
pub(super) fn drop_cache(file: &File) {
    // SAFETY: a plain system call on a descriptor the &File keeps open; no memory is passed.
    unsafe {
        libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED);
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::FileExt;

    use super::*;

    /// The queue refuses what would let the kernel and safe code share a buffer, then writes.
    #[test]
    fn queue_guards_its_slots() {
        if !available() {
            eprintln!("Linux AIO refused here; skipping");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let file = File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(dir.path().join("q.bin"))
            .unwrap();
        let mut queue = Queue::new(
            &file,
            vec![AlignedBuf::zeroed(4096), AlignedBuf::zeroed(4096)],
        )
        .unwrap();
        let req = |slot, len| Request {
            slot,
            write: true,
            offset: 0,
            len,
        };
        assert!(queue.submit(&[req(2, 4096)]).is_err(), "out of range");
        assert!(
            queue.submit(&[req(0, 8192)]).is_err(),
            "longer than the buffer"
        );
        assert!(
            queue.submit(&[req(1, 4096), req(1, 4096)]).is_err(),
            "named twice"
        );
        assert!(!queue.busy[1], "a refused submission leaves the slot free");

        queue.buffer_mut(0).unwrap()[..4].copy_from_slice(b"aio!");
        assert_eq!(queue.submit(&[req(0, 4096)]).unwrap(), 1);
        assert!(
            queue.buffer_mut(0).is_err(),
            "no buffer lent while in flight"
        );
        assert!(queue.submit(&[req(0, 4096)]).is_err(), "in flight");
        let mut done = Vec::new();
        while done.is_empty() {
            done.extend_from_slice(queue.reap(Duration::from_secs(5)).unwrap());
        }
        assert_eq!((done[0].slot, done[0].res), (0, 4096));
        assert!(queue.buffer_mut(0).is_ok(), "the slot is free once reaped");
        drop(queue);
        let mut head = [0u8; 4];
        file.read_exact_at(&mut head, 0).unwrap();
        assert_eq!(&head, b"aio!");
    }
}
