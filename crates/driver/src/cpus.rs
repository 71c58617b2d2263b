//! The CPUs this process may run on, and a pool of workers over them.
//!
//! The CPUs come from the process's affinity mask (`sched_getaffinity`): under
//! `taskset -c 2,3` or inside a cluster job's cpuset they are exactly the ones given,
//! never CPU 0 by default. [`run`] starts at most one worker per allowed CPU and hands
//! each worker its CPU (each search pins itself there), so at most one search runs on a
//! CPU. It never reorders results: [`run`] returns them in task order.

use std::sync::{Mutex, OnceLock};

/// The CPUs the process may use, in increasing order (never empty: where the mask
/// cannot be read, the CPUs `available_parallelism` counts, numbered from 0). Read once,
/// at the first call, before any thread of the process pins itself (a pinned thread's
/// own mask is its one CPU); a widening of the mask later (`taskset` on a running
/// process) is not seen.
pub fn allowed() -> Vec<usize> {
    static ALLOWED: OnceLock<Vec<usize>> = OnceLock::new();
    ALLOWED.get_or_init(read_mask).clone()
}

/// The calling thread's affinity mask, as [`allowed`] documents.
fn read_mask() -> Vec<usize> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; the kernel fills it.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let size = std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: `set` is a cpu_set_t of `size` bytes; pid 0 is this thread.
    let rc = unsafe { libc::sched_getaffinity(0, size, &mut set) };
    let cpus: Vec<usize> = if rc == 0 {
        (0..libc::CPU_SETSIZE as usize)
            // SAFETY: cpu is below CPU_SETSIZE.
            .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
            .collect()
    } else {
        Vec::new()
    };
    if cpus.is_empty() {
        let n = std::thread::available_parallelism().map_or(1, |n| n.get());
        (0..n).collect()
    } else {
        cpus
    }
}

/// The allowed CPUs as a list: `0-3,6`.
pub fn describe(cpus: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        parts.push(if j == i {
            cpus[i].to_string()
        } else {
            format!("{}-{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

/// What [`run`] will do with `jobs` workers over `cpus`, in words: `0-1 (up to 2
/// searches at a time)`.
pub fn describe_run(cpus: &[usize], jobs: usize) -> String {
    format!(
        "{} (up to {} searches at a time)",
        describe(cpus),
        jobs.clamp(1, cpus.len().max(1))
    )
}

/// `work(task, cpu)` for every task in `0..tasks`, on at most `workers` threads (at least
/// one), each with its own CPU of `cpus`; the results in task order.
pub fn run<T: Send>(
    tasks: usize,
    workers: usize,
    cpus: &[usize],
    work: impl Fn(usize, usize) -> T + Sync,
) -> Vec<T> {
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<Option<T>>> = Mutex::new((0..tasks).map(|_| None).collect());
    let cpus: &[usize] = if cpus.is_empty() { &[0] } else { cpus };
    std::thread::scope(|s| {
        for &cpu in &cpus[..workers.clamp(1, cpus.len())] {
            let (next, results, work) = (&next, &results, &work);
            s.spawn(move || loop {
                let task = {
                    let mut n = next.lock().expect("queue");
                    let t = *n;
                    *n += 1;
                    t
                };
                if task >= tasks {
                    return;
                }
                let r = work(task, cpu);
                results.lock().expect("results")[task] = Some(r);
            });
        }
    });
    results
        .into_inner()
        .expect("results")
        .into_iter()
        .map(|r| r.expect("every task ran"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_task_once_in_order_each_on_a_given_cpu() {
        for (tasks, workers, cpus) in [
            (0, 1, vec![0]),
            (1, 1, vec![3]),
            (7, 2, vec![1, 5]),
            (3, 8, vec![0, 1]),
            (5, 0, vec![2]),
            (4, 2, vec![]),
        ] {
            let used = Mutex::new(Vec::new());
            let got = run(tasks, workers, &cpus, |t, cpu| {
                used.lock().unwrap().push(cpu);
                t * 10
            });
            let want: Vec<usize> = (0..tasks).map(|t| t * 10).collect();
            assert_eq!(got, want, "{tasks} tasks on {workers} workers");
            let allowed = if cpus.is_empty() {
                vec![0]
            } else {
                cpus.clone()
            };
            let used = used.into_inner().unwrap();
            assert!(
                used.iter().all(|c| allowed.contains(c)),
                "{used:?} not in {allowed:?}"
            );
        }
    }

    #[test]
    fn the_mask_is_this_process_s() {
        let cpus = allowed();
        assert!(!cpus.is_empty());
        assert!(cpus.windows(2).all(|w| w[0] < w[1]), "{cpus:?}");
        // Pinning to each allowed CPU works (the set the kernel gave us).
        let first = cpus[0];
        cryptopt_measure::counter::pin_to_cpu(first).expect("an allowed CPU");
    }

    #[test]
    fn lists_are_ranges() {
        for (cpus, want) in [
            (vec![], ""),
            (vec![0], "0"),
            (vec![0, 1, 2, 3], "0-3"),
            (vec![1, 3, 4, 5, 8], "1,3-5,8"),
        ] {
            assert_eq!(describe(&cpus), want);
        }
    }
}
