//! Gives the component a large shadow stack (the part of the stack in linear
//! memory), so that the unbounded recursion exhausts the host's wasm stack
//! limit first, which is what the host's test checks.

fn main() {
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-link-arg=-zstack-size=16777216");
    }
}
