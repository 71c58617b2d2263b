//! `cryptopt`: the command-line front of the library crates.
//!
//! A thin binary (ripgrep's shape): this file only parses the command line, dispatches,
//! and turns errors into exit codes: 0 success; 1 a check failed ([`CheckFailed`]);
//! 2 usage or input error, with one line on stderr naming the problem. It never panics
//! on bad input.
//!
//! ```text
//!   args (clap) ─▶ main ─▶ commands (list, interp, ir, emit-c, gen, codegen, check)
//!                       ├▶ optimize (one function: search, prove, write)
//!                       └▶ bench (several functions against C compilers)
//!   checks: native run against the interpreter + proof, used by all of them
//!   files: reading inputs, atomic writes          report: log.csv, progress.svg
//! ```

mod args;
mod bench;
mod checks;
mod commands;
mod files;
mod optimize;
mod report;

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use clap::Parser;

use args::{Cli, Cmd};
use checks::CheckFailed;

fn main() -> ExitCode {
    let cli = Cli::parse(); // clap prints usage errors itself and exits with 2
    match dispatch(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS, // `cryptopt ... | head`
        Err(e) if e.downcast_ref::<checks::Interrupted>().is_some() => ExitCode::from(130),
        Err(e) => {
            // One line: the chain of causes joined.
            let msg: Vec<String> = e.chain().map(|c| c.to_string()).collect();
            eprintln!("cryptopt: error: {}", msg.join(": ").replace('\n', " "));
            if e.downcast_ref::<CheckFailed>().is_some() {
                ExitCode::from(1)
            } else {
                ExitCode::from(2)
            }
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.downcast_ref::<std::io::Error>()
        .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
}

fn dispatch(cli: Cli) -> Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match cli.cmd {
        Cmd::List(a) => commands::list(a, &mut out)?,
        Cmd::Interp(a) => commands::interp(a, &mut out)?,
        Cmd::Codegen(a) => commands::codegen(a, &mut out)?,
        Cmd::Check(a) => commands::check(a, &mut out)?,
        Cmd::Gen(a) => commands::gen(a, &mut out)?,
        Cmd::EmitC(a) => commands::emit_c(a, &mut out)?,
        Cmd::Optimize(a) => optimize::command(a)?,
        Cmd::Bench(a) => bench::command(a)?,
        Cmd::Ir(a) => commands::ir(a, &mut out)?,
    }
    out.flush()?;
    Ok(())
}
