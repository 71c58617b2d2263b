//! `cryptopt`: the command-line front of the library crates.
//!
//! A thin binary (ripgrep's shape): this file only parses the command line, dispatches,
//! and turns errors into exit codes: 0 success; 1 a check failed
//! ([`cryptopt_driver::Error::CheckFailed`]); 130 interrupted;
//! 2 usage or input error, with one line on stderr naming the problem. It never panics
//! on bad input.
//!
//! ```text
//!   args (clap) ─▶ main ─▶ commands (list, interp, ir, emit-c, gen, codegen, check)
//!                       ├▶ optimize (one function: search, prove, write)
//!                       └▶ bench (several functions against C compilers)
//!                       └▶ primitive (a Diffie–Hellman library from optimized code)
//!   progress: the driver's Progress drawn on stderr     the pipeline: cryptopt-driver
//! ```

mod args;
mod bench;
mod commands;
mod flags;
mod optimize;
mod primitive;
mod progress;

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use clap::Parser;

use args::{Cli, Cmd};
use cryptopt_driver::ExitClass;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    match dispatch(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS, // `cryptopt ... | head`
        Err(e) => {
            let class = e
                .downcast_ref::<cryptopt_driver::Error>()
                .map_or(ExitClass::Input, |d| d.exit_class());
            if class == ExitClass::Interrupted {
                return ExitCode::from(130);
            }
            eprintln!("cryptopt: error: {}", flags::message(&e));
            ExitCode::from(if class == ExitClass::CheckFailed {
                1
            } else {
                2
            })
        }
    }
}

/// Help and version go to stdout as clap prints them; a usage error becomes one line
/// (clap's message and its tip, if any) and exit code 2.
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
    }
    eprintln!("cryptopt: error: {}", one_line(&e.render().to_string()));
    ExitCode::from(2)
}

/// clap's rendered error (`error: ...`, a blank line, `  tip: ...`, `Usage: ...`,
/// `For more information, try '--help'.`) as one line: the message, the tips, and the
/// help hint.
fn one_line(rendered: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    let mut usage = None;
    for line in rendered.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(u) = line.strip_prefix("Usage: ") {
            usage = Some(u);
        } else if !line.starts_with("For more information") {
            parts.push(line.strip_prefix("error: ").unwrap_or(line));
        }
    }
    let mut out = String::new();
    for p in parts {
        if !out.is_empty() {
            out.push_str(if out.ends_with(':') { " " } else { "; " });
        }
        out.push_str(p);
    }
    if let Some(u) = usage {
        out.push_str(&format!(" (usage: {u}; see --help)"));
    }
    out
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
        Cmd::Primitive(a) => primitive::command(a)?,
        Cmd::Ir(a) => commands::ir(a, &mut out)?,
    }
    out.flush()?;
    Ok(())
}
