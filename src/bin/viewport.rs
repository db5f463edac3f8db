//! The `viewport` command line. Thin: parses arguments and hands over to the
//! library (`viewport::cli`).

fn main() {
    std::process::exit(viewport::cli::main());
}
