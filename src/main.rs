//! The `retroclock` command line: parses arguments and hands them to the library.
fn main() {}
