//! A fixed pool of worker threads over a list of tasks, for commands that optimize several
//! functions at once (`bench`, `primitive`): each worker takes the next task until none
//! is left. A worker's number is its CPU (each search pins itself there): there are never
//! more workers than CPUs this process may use, so at most one search runs per CPU. It
//! never reorders results: `run` returns them in task order.

use std::sync::Mutex;

/// `work(task, worker)` for every task in `0..tasks`, on `workers` threads (at least one,
/// at most the CPUs available); the results in task order.
pub(crate) fn run<T: Send>(
    tasks: usize,
    workers: usize,
    work: impl Fn(usize, usize) -> T + Sync,
) -> Vec<T> {
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<Option<T>>> = Mutex::new((0..tasks).map(|_| None).collect());
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|s| {
        for worker in 0..workers.clamp(1, cpus) {
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
                let r = work(task, worker);
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
    use super::run;

    #[test]
    fn every_task_once_in_order() {
        for (tasks, workers) in [(0, 1), (1, 1), (7, 2), (3, 8), (5, 0)] {
            let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
            let got = run(tasks, workers, |t, w| {
                assert!(w < workers.clamp(1, cpus), "worker {w} of {workers}");
                t * 10
            });
            let want: Vec<usize> = (0..tasks).map(|t| t * 10).collect();
            assert_eq!(got, want, "{tasks} tasks on {workers} workers");
        }
    }
}
