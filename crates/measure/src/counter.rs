//! The clock that batches of calls are timed with, and the measuring thread's CPU.
//!
//! ```text
//!   detect() ──perf_event_open(CPU_CYCLES, this thread) + mmap + cap_user_rdpmc──▶ CoreCycles
//!       └──────────────── anything fails (no PMU under KVM, paranoid, …) ──────────▶ Tsc
//! ```
//!
//! * [`Counter::CoreCycles`]: core cycles of the calling thread, read in user space with
//!   `rdpmc` from the perf event's control page (the kernel's seqlock protocol; no system
//!   call per read). Preferred where it works.
//! * [`Counter::Tsc`]: `lfence; rdtsc; lfence`. The time-stamp counter runs at a fixed
//!   rate, not in core cycles, so its ticks scale with frequency changes; it is what is
//!   left on virtual machines without a virtual PMU (this project's usual machine).
//!
//! [`overhead`] measures the cost of an empty timed region (reports say what it was;
//! [`timing`](crate::timing) sizes its batches so that it stays below about 1% of a
//! batch).
//! [`pin_to_cpu`], [`current_cpu`], [`cpu_model`] and [`cpu_features`] are for the
//! measuring thread's set-up and for reports.
//!
//! What this module must never do: put `cpuid` or any other instruction a hypervisor
//! traps inside a read. Under KVM a trapped instruction is a VM exit of about 11,000 TSC
//! ticks, which would drown every measurement (upstream CryptOpt's fallback timer does
//! exactly that). A read is `lfence`, `rdtsc`/`rdpmc`, `lfence` and, for core cycles, a
//! few loads from the control page; nothing allocates or makes a system call.

use std::arch::asm;
use std::arch::x86_64::{_mm_lfence, _rdtsc};
use std::io;
use std::mem;
use std::os::fd::{FromRawFd, OwnedFd};
use std::ptr::{self, NonNull};
use std::sync::atomic::{compiler_fence, Ordering};

use crate::error::{Error, Result};

/// A clock for timing batches of calls. Read it with [`Counter::read`]; only
/// differences of two reads on the same thread mean anything.
///
/// `CoreCycles` counts the cycles of the thread that called [`detect`], so a `Counter`
/// is neither `Send` nor `Sync`: detect one on every measuring thread.
#[derive(Debug)]
pub enum Counter {
    /// Core cycles of the calling thread, from a perf event read with `rdpmc`.
    CoreCycles(Pmc),
    /// The time-stamp counter, read with `lfence; rdtsc; lfence`.
    Tsc,
}

/// `lfence; rdtsc; lfence`: the time-stamp counter, after everything before it has
/// completed and before anything after it starts.
#[inline(always)]
pub fn tsc() -> u64 {
    // SAFETY: lfence and rdtsc exist on every x86-64 CPU (SSE2 is baseline); rdtsc is
    // only refused when CR4.TSD is set, which Linux does not do for ordinary processes.
    // None of them touches memory or registers Rust knows about.
    unsafe {
        _mm_lfence();
        let t = _rdtsc();
        _mm_lfence();
        t
    }
}

impl Counter {
    /// The current count. Costs what [`overhead`] reports; no trapping instruction, no
    /// allocation, no system call.
    #[inline(always)]
    pub fn read(&self) -> u64 {
        match self {
            Counter::CoreCycles(p) => p.read(),
            Counter::Tsc => tsc(),
        }
    }

    /// A short name: `"core-cycles"` or `"tsc"`.
    pub fn name(&self) -> &'static str {
        match self {
            Counter::CoreCycles(_) => "core-cycles",
            Counter::Tsc => "tsc",
        }
    }

    /// What the counter is, for reports.
    pub fn describe(&self) -> String {
        match self {
            Counter::CoreCycles(p) => format!(
                "core-cycles (perf_event PERF_COUNT_HW_CPU_CYCLES of this thread, read with \
                 lfence;rdpmc;lfence, {}-bit counter)",
                p.width()
            ),
            Counter::Tsc => {
                "tsc (lfence;rdtsc;lfence; runs at a fixed rate, not core cycles)".to_string()
            }
        }
    }
}

/// The best counter this thread can have, and why it is that one: core cycles through
/// `perf_event_open` with user-space `rdpmc` if the kernel and the (virtual) hardware
/// allow it, the TSC otherwise.
pub fn detect() -> (Counter, String) {
    match Pmc::open() {
        Ok(p) => {
            let why = format!(
                "perf_event_open(PERF_COUNT_HW_CPU_CYCLES) on this thread works and its \
                 control page allows user-space rdpmc (counter {}, {} bits)",
                p.index(),
                p.width()
            );
            (Counter::CoreCycles(p), why)
        }
        Err(why) => (
            Counter::Tsc,
            format!("core cycles unavailable: {why}; falling back to lfence;rdtsc;lfence"),
        ),
    }
}

/// Which counter to use: the command line's `--counter`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Choice {
    /// The measured best of those that work here (see [`choose`]).
    #[default]
    Auto,
    Tsc,
    CoreCycles,
}

/// What [`choose`] measured of one counter.
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    pub name: &'static str,
    /// Median ticks of an empty timed region (subtracted from every batch).
    pub read_cost: u64,
    /// Relative spread of a fixed piece of work timed repeatedly: interquartile range
    /// over median (0.01 = 1%).
    pub noise: f64,
}

/// The chosen counter, why, and what was measured of every counter that works here.
pub struct Chosen {
    pub counter: Counter,
    pub why: String,
    pub probes: Vec<Probe>,
}

/// Timings of the fixed work per probe.
const PROBE_SAMPLES: usize = 63;
/// Noise within this factor of the best counter's counts as a tie (then the cheaper
/// read wins).
const NOISE_TIE: f64 = 1.25;

/// Picks the counter for this thread: the one `choice` names (an error if it does not
/// work here), or with [`Choice::Auto`] the least noisy of those that work, the cheaper
/// to read when their noise is within 25% of each other. Core cycles do not scale with
/// the clock frequency, the TSC does; which matters more on a given machine is what the
/// noise probe measures.
pub fn choose(choice: Choice) -> Result<Chosen> {
    let (candidates, why) = match (choice, Pmc::open()) {
        (Choice::Tsc, _) => (vec![Counter::Tsc], "counter tsc, as asked".to_string()),
        (Choice::CoreCycles, Err(why)) => {
            return Err(Error::Counter {
                counter: "core-cycles",
                reason: why.to_string(),
            })
        }
        (Choice::CoreCycles, Ok(p)) => (
            vec![Counter::CoreCycles(p)],
            "counter core-cycles, as asked".to_string(),
        ),
        (Choice::Auto, Err(why)) => (
            vec![Counter::Tsc],
            format!("core cycles unavailable: {why}; the TSC is the only counter"),
        ),
        (Choice::Auto, Ok(p)) => (vec![Counter::CoreCycles(p), Counter::Tsc], String::new()),
    };
    let probes: Vec<Probe> = candidates
        .iter()
        .map(|c| Probe {
            name: c.name(),
            read_cost: overhead(c, 1001),
            noise: noise(c),
        })
        .collect();
    let least_noise = probes.iter().map(|p| p.noise).fold(f64::INFINITY, f64::min);
    // Among those within the tie of the least noisy, the cheapest to read.
    let pick = (0..probes.len())
        .filter(|&i| probes[i].noise <= least_noise * NOISE_TIE)
        .min_by_key(|&i| probes[i].read_cost)
        .unwrap_or(0);
    let why = if candidates.len() == 1 {
        why
    } else if probes.iter().all(|p| p.noise <= least_noise * NOISE_TIE) {
        format!("{}: noise alike, cheaper to read", probes[pick].name)
    } else {
        format!("{}: less noisy", probes[pick].name)
    };
    let counter = candidates
        .into_iter()
        .nth(pick)
        .expect("pick indexes the candidates");
    Ok(Chosen {
        counter,
        why,
        probes,
    })
}

/// A chain of dependent additions, a few thousand cycles long: what the counters are
/// checked and probed with.
#[inline(never)]
fn busy_work() {
    let mut x = std::hint::black_box(1u64);
    for i in 0..2048u64 {
        x = std::hint::black_box(x.wrapping_add(i));
    }
    std::hint::black_box(x);
}

/// One line about what [`choose`] measured: `tsc: read 49 ticks, noise 0.3%; ...`.
pub fn describe_probes(probes: &[Probe]) -> String {
    probes
        .iter()
        .map(|p| {
            format!(
                "{}: read {} ticks, noise {:.1}%",
                p.name,
                p.read_cost,
                p.noise * 100.0
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Relative spread (IQR over median) of [`busy_work`] timed [`PROBE_SAMPLES`] times.
fn noise(c: &Counter) -> f64 {
    let mut v: Vec<f64> = (0..PROBE_SAMPLES)
        .map(|_| {
            let t0 = c.read();
            busy_work();
            c.read().wrapping_sub(t0) as f64
        })
        .collect();
    let s = crate::timing::Stats::from_samples(&mut v);
    if s.median > 0.0 {
        (s.q3 - s.q1) / s.median
    } else {
        f64::INFINITY
    }
}

/// The median number of ticks of an empty timed region (two reads back to back) over
/// `samples` samples (at least one).
pub fn overhead(counter: &Counter, samples: usize) -> u64 {
    match counter {
        Counter::CoreCycles(p) => overhead_with(|| p.read(), samples),
        Counter::Tsc => overhead_with(tsc, samples),
    }
}

fn overhead_with(now: impl Fn() -> u64, samples: usize) -> u64 {
    let mut v: Vec<u64> = Vec::with_capacity(samples.max(1));
    for _ in 0..samples.max(1) {
        let t0 = now();
        let t1 = now();
        v.push(t1.wrapping_sub(t0));
    }
    v.sort_unstable();
    v[v.len() / 2]
}

/// Pins the calling thread to CPU `cpu` (`sched_setaffinity`).
pub fn pin_to_cpu(cpu: usize) -> Result<()> {
    let setsize = libc::CPU_SETSIZE as usize;
    if cpu >= setsize {
        return Err(Error::Pin {
            cpu,
            err: io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("a CPU set names CPUs 0 to {}", setsize - 1),
            ),
        });
    }
    // SAFETY: cpu_set_t is a plain bit array; all zeros is the empty set.
    let mut set: libc::cpu_set_t = unsafe { mem::zeroed() };
    // SAFETY: `cpu < CPU_SETSIZE` (checked above), so the bit is inside the set.
    unsafe { libc::CPU_SET(cpu, &mut set) };
    // SAFETY: pid 0 is the calling thread; `set` is a valid cpu_set_t of the size given.
    let rc = unsafe { libc::sched_setaffinity(0, mem::size_of::<libc::cpu_set_t>(), &set) };
    if rc != 0 {
        return Err(Error::Pin {
            cpu,
            err: io::Error::last_os_error(),
        });
    }
    Ok(())
}

/// The CPU the calling thread runs on right now (`sched_getcpu`), if the system says.
pub fn current_cpu() -> Option<usize> {
    // SAFETY: sched_getcpu has no preconditions.
    let c = unsafe { libc::sched_getcpu() };
    usize::try_from(c).ok()
}

/// The first `model name` of `/proc/cpuinfo`, or `"unknown CPU"`.
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| cpuinfo_field(&s, "model name").map(str::to_string))
        .unwrap_or_else(|| "unknown CPU".to_string())
}

/// Whether the CPU has ADX (`adcx`, `adox`) and BMI2 (`mulx`): the `flags` of
/// `/proc/cpuinfo`, or `cpuid` (outside any timed region) if that cannot be read.
pub fn cpu_features() -> (bool, bool) {
    let from_proc = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| cpuinfo_field(&s, "flags").map(str::to_string));
    match from_proc {
        Some(flags) => {
            let has = |f: &str| flags.split_whitespace().any(|w| w == f);
            (has("adx"), has("bmi2"))
        }
        None => (
            std::arch::is_x86_feature_detected!("adx"),
            std::arch::is_x86_feature_detected!("bmi2"),
        ),
    }
}

/// The value of the first `key : value` line of a cpuinfo text.
fn cpuinfo_field<'a>(cpuinfo: &'a str, key: &str) -> Option<&'a str> {
    cpuinfo.lines().find_map(|line| {
        let (k, v) = line.split_once(':')?;
        (k.trim() == key).then(|| v.trim())
    })
}

// ---------------------------------------------------------------------------------------
// Core cycles through perf_event_open and rdpmc.

/// `struct perf_event_attr` up to `PERF_ATTR_SIZE_VER0` (64 bytes), which every kernel
/// with perf events accepts.
#[repr(C)]
#[derive(Default)]
struct PerfEventAttr {
    type_: u32,
    size: u32,
    config: u64,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    /// Bit field: disabled (bit 0), inherit, pinned, exclusive, exclude_user,
    /// exclude_kernel (bit 5), exclude_hv (bit 6), ...
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    config1: u64,
}

// The kernel ABI (include/uapi/linux/perf_event.h).
const _: () = {
    assert!(mem::size_of::<PerfEventAttr>() == 64);
    assert!(mem::offset_of!(PerfEventAttr, config) == 8);
    assert!(mem::offset_of!(PerfEventAttr, flags) == 40);
    assert!(mem::offset_of!(PerfEventAttr, config1) == 56);
    assert!(mem::offset_of!(MmapPage, lock) == 8);
    assert!(mem::offset_of!(MmapPage, index) == 12);
    assert!(mem::offset_of!(MmapPage, offset) == 16);
    assert!(mem::offset_of!(MmapPage, capabilities) == 40);
    assert!(mem::offset_of!(MmapPage, pmc_width) == 48);
};

const PERF_TYPE_HARDWARE: u32 = 0;
const PERF_COUNT_HW_CPU_CYCLES: u64 = 0;
const ATTR_EXCLUDE_KERNEL: u64 = 1 << 5;
const ATTR_EXCLUDE_HV: u64 = 1 << 6;
const PERF_FLAG_FD_CLOEXEC: libc::c_ulong = 1 << 3;
/// `cap_user_rdpmc` in `perf_event_mmap_page::capabilities`.
const CAP_USER_RDPMC: u64 = 1 << 2;

/// The start of `struct perf_event_mmap_page` (the first page of the event's mapping):
/// the fields the self-monitoring read needs.
#[repr(C)]
struct MmapPage {
    version: u32,
    compat_version: u32,
    /// Seqlock: changes whenever the kernel updates the page.
    lock: u32,
    /// Hardware counter number plus one; 0: not on a counter right now.
    index: u32,
    /// Add to the (sign-extended) rdpmc value.
    offset: i64,
    time_enabled: u64,
    time_running: u64,
    capabilities: u64,
    /// Bits of the value rdpmc returns.
    pmc_width: u16,
}

/// A perf event counting the core cycles of one thread in user space, with its control
/// page mapped so that [`Pmc::read`] needs no system call.
#[derive(Debug)]
pub struct Pmc {
    /// Closing it ends the event; kept open as long as the page is mapped.
    _fd: OwnedFd,
    page: NonNull<MmapPage>,
    len: usize,
}

impl Drop for Pmc {
    fn drop(&mut self) {
        // SAFETY: the mapping is ours (made in `open`), `len` bytes long, and nothing
        // refers to it once the Pmc is gone. The fd closes after this (field drop).
        unsafe { libc::munmap(self.page.as_ptr().cast(), self.len) };
    }
}

/// `rdpmc` of hardware counter `counter`, fenced like the TSC read.
///
/// # Safety
/// User-space `rdpmc` must be allowed (CR4.PCE), as the kernel says it is through
/// `cap_user_rdpmc` while this thread has the event mapped, and `counter` must be a
/// counter that exists; otherwise the instruction faults.
#[inline(always)]
unsafe fn rdpmc(counter: u32) -> u64 {
    let (lo, hi): (u32, u32);
    // SAFETY: see the function's contract; lfence has no preconditions. The asm block
    // is a compiler barrier for memory (no `nomem`), so the control-page loads around it
    // stay in place.
    unsafe {
        _mm_lfence();
        asm!("rdpmc", in("ecx") counter, out("eax") lo, out("edx") hi,
             options(nostack, preserves_flags));
        _mm_lfence();
    }
    (u64::from(hi) << 32) | u64::from(lo)
}

/// Why core cycles cannot be read here ([`Error::NoCoreCycles`]).
fn no_core_cycles(reason: impl Into<String>) -> Error {
    Error::NoCoreCycles {
        reason: reason.into(),
    }
}

impl Pmc {
    /// Opens the cycle counter of the calling thread and maps its control page; refuses
    /// (with the reason) unless user-space rdpmc works and counts.
    fn open() -> Result<Pmc> {
        let attr = PerfEventAttr {
            type_: PERF_TYPE_HARDWARE,
            size: mem::size_of::<PerfEventAttr>() as u32,
            config: PERF_COUNT_HW_CPU_CYCLES,
            // Enabled from the start; user space only (allowed at perf_event_paranoid 2).
            flags: ATTR_EXCLUDE_KERNEL | ATTR_EXCLUDE_HV,
            ..PerfEventAttr::default()
        };
        // SAFETY: perf_event_open(attr, pid 0 = this thread, cpu -1 = any, no group,
        // CLOEXEC); `attr` is a valid VER0 attribute structure that outlives the call.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_perf_event_open,
                &attr as *const PerfEventAttr,
                0 as libc::pid_t,
                -1 as libc::c_int,
                -1 as libc::c_int,
                PERF_FLAG_FD_CLOEXEC,
            )
        };
        if fd < 0 {
            return Err(no_core_cycles(format!(
                "perf_event_open(PERF_COUNT_HW_CPU_CYCLES) failed: {}",
                io::Error::last_os_error()
            )));
        }
        let fd = libc::c_int::try_from(fd)
            .map_err(|_| no_core_cycles(format!("bad perf event fd {fd}")))?;
        // SAFETY: `fd` is a fresh file descriptor that nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        // SAFETY: sysconf has no preconditions.
        let len = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) })
            .ok()
            .filter(|&n| n > 0)
            .unwrap_or(4096);
        // SAFETY: maps the event's control page (one page, no ring buffer) read-only at
        // an address the kernel chooses.
        let p = unsafe {
            libc::mmap(
                ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_SHARED,
                std::os::fd::AsRawFd::as_raw_fd(&fd),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(no_core_cycles(format!(
                "mmap of the perf event page failed: {}",
                io::Error::last_os_error()
            )));
        }
        let page = NonNull::new(p.cast::<MmapPage>())
            .ok_or_else(|| no_core_cycles("mmap of the perf event page returned null"))?;
        let pmc = Pmc { _fd: fd, page, len };
        // SAFETY: the page is mapped and readable for the Pmc's lifetime.
        let caps = unsafe { ptr::read_volatile(ptr::addr_of!((*pmc.page.as_ptr()).capabilities)) };
        if caps & CAP_USER_RDPMC == 0 {
            return Err(no_core_cycles(
                "the perf event page does not allow user-space rdpmc (cap_user_rdpmc = 0)",
            ));
        }
        if pmc.index() == 0 {
            return Err(no_core_cycles(
                "the cycle event is not on a hardware counter (index 0)",
            ));
        }
        // Does it count? A few thousand dependent adds are thousands of cycles.
        let t0 = pmc.read();
        busy_work();
        let t1 = pmc.read();
        let d = t1.wrapping_sub(t0);
        if d == 0 || d > 1 << 40 {
            return Err(no_core_cycles(format!(
                "rdpmc does not count cycles ({t0} then {t1})"
            )));
        }
        Ok(pmc)
    }

    /// Hardware counter number plus one (0: not on a counter right now).
    fn index(&self) -> u32 {
        // SAFETY: the page is mapped and readable for the Pmc's lifetime; volatile
        // because the kernel writes it behind our back.
        unsafe { ptr::read_volatile(ptr::addr_of!((*self.page.as_ptr()).index)) }
    }

    /// Bits of the hardware counter.
    fn width(&self) -> u16 {
        // SAFETY: as in `index`.
        unsafe { ptr::read_volatile(ptr::addr_of!((*self.page.as_ptr()).pmc_width)) }
    }

    /// Cycles this thread has spent in user space since the event was opened (the
    /// kernel's self-monitoring protocol: retry while the seqlock changes).
    #[inline(always)]
    pub fn read(&self) -> u64 {
        let p = self.page.as_ptr();
        loop {
            // SAFETY: the page is mapped and readable for the Pmc's lifetime (addresses
            // of fields inside it; volatile because the kernel writes it).
            let (seq, index, offset, width) = unsafe {
                let seq = ptr::read_volatile(ptr::addr_of!((*p).lock));
                compiler_fence(Ordering::SeqCst);
                (
                    seq,
                    ptr::read_volatile(ptr::addr_of!((*p).index)),
                    ptr::read_volatile(ptr::addr_of!((*p).offset)),
                    ptr::read_volatile(ptr::addr_of!((*p).pmc_width)),
                )
            };
            let mut count = offset as u64;
            if index != 0 {
                // SAFETY: `open` checked cap_user_rdpmc; the kernel keeps rdpmc allowed
                // for this thread while the event is mapped, and a non-zero index names
                // the counter the event is on now.
                let raw = unsafe { rdpmc(index - 1) };
                let shift = 64 - u32::from(width).clamp(1, 64);
                count = count.wrapping_add((((raw << shift) as i64) >> shift) as u64);
            }
            compiler_fence(Ordering::SeqCst);
            // SAFETY: as above.
            if unsafe { ptr::read_volatile(ptr::addr_of!((*p).lock)) } == seq {
                return count;
            }
        }
    }
}
