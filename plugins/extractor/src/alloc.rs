//! The component's allocator: blocks of size classes up to 32 KiB kept on
//! free lists, larger ones from the system allocator.
//!
//! Why: an extraction runs in a fresh instance whose memory is dropped
//! after the call, and it makes many small short-lived allocations (texts,
//! attribute values, vectors). A free-list pop or a pointer bump costs a few
//! instructions where dlmalloc's binning, splitting and coalescing cost
//! tens. Freed small blocks are reused for the same class only, so memory
//! never shrinks within a call; a block is at most a quarter larger than
//! the size asked for.
//!
//! WebAssembly here runs one thread per instance, so the state needs no
//! lock.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::ptr::null_mut;

/// Size classes: multiples of 16 up to 128, then four steps per doubling up
/// to 32 KiB, so that a block is at most a quarter larger than asked for.
const CLASSES: usize = 8 + 4 * 8;
const LARGEST: usize = 32 * 1024;
/// Blocks are aligned to 16 bytes at least; a larger alignment goes to the
/// system allocator.
const ALIGN: usize = 16;
/// Small blocks are cut from chunks of this size.
const CHUNK: usize = 256 * 1024;

pub struct Classes {
    state: UnsafeCell<State>,
}

struct State {
    /// The head of each class's free list (a freed block holds the next).
    free: [*mut u8; CLASSES],
    /// The rest of the current chunk.
    next: *mut u8,
    end: *mut u8,
}

// SAFETY: wasm32 components run one thread; nothing shares the state.
unsafe impl Sync for Classes {}

impl Classes {
    pub const fn new() -> Self {
        Classes {
            state: UnsafeCell::new(State {
                free: [null_mut(); CLASSES],
                next: null_mut(),
                end: null_mut(),
            }),
        }
    }
}

/// The class of a layout, or `None` when the system allocator takes it.
fn class_of(layout: Layout) -> Option<usize> {
    let size = layout.size().max(1);
    if size > LARGEST || layout.align() > ALIGN {
        return None;
    }
    if size <= 128 {
        return Some((size + 15) / 16 - 1);
    }
    // size is in (2^p, 2^(p+1)], cut in four steps of 2^(p-2).
    let p = (usize::BITS - 1 - (size - 1).leading_zeros()) as usize;
    let step = 1 << (p - 2);
    let within = (size - (1 << p)).div_ceil(step) - 1;
    Some(8 + (p - 7) * 4 + within)
}

/// The size of the blocks of a class.
fn class_size(class: usize) -> usize {
    if class < 8 {
        return (class + 1) * 16;
    }
    let p = 7 + (class - 8) / 4;
    (1 << p) + ((class - 8) % 4 + 1) * (1 << (p - 2))
}

unsafe impl GlobalAlloc for Classes {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let Some(class) = class_of(layout) else {
            return unsafe { System.alloc(layout) };
        };
        // SAFETY: one thread (see above); no reference outlives the call.
        let state = unsafe { &mut *self.state.get() };
        let head = state.free[class];
        if !head.is_null() {
            // SAFETY: a freed block of this class holds the next head.
            state.free[class] = unsafe { *(head as *mut *mut u8) };
            return head;
        }
        let size = class_size(class);
        // Blocks are cut in order of the chunk; every class size is a
        // multiple of 16, so each block stays aligned to 16.
        if state.next.is_null() || state.next as usize + size > state.end as usize {
            let chunk = Layout::from_size_align(CHUNK, ALIGN).expect("a valid layout");
            // SAFETY: a non-zero size.
            let fresh = unsafe { System.alloc(chunk) };
            if fresh.is_null() {
                return fresh;
            }
            state.next = fresh;
            // SAFETY: within the chunk just allocated.
            state.end = unsafe { fresh.add(CHUNK) };
            return unsafe { self.alloc(layout) };
        }
        let block = state.next;
        // SAFETY: block + size is within the current chunk.
        state.next = unsafe { block.add(size) };
        block
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let Some(class) = class_of(layout) else {
            return unsafe { System.dealloc(ptr, layout) };
        };
        // SAFETY: one thread; the block was handed out for this class.
        let state = unsafe { &mut *self.state.get() };
        unsafe { *(ptr as *mut *mut u8) = state.free[class] };
        state.free[class] = ptr;
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old = class_of(layout);
        // SAFETY: the caller guarantees a valid layout for the new size.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        let new = class_of(new_layout);
        match (old, new) {
            (Some(a), Some(b)) if a == b => ptr,
            (None, None) => unsafe { System.realloc(ptr, layout, new_size) },
            _ => {
                let fresh = unsafe { self.alloc(new_layout) };
                if !fresh.is_null() {
                    let keep = layout.size().min(new_size);
                    unsafe { std::ptr::copy_nonoverlapping(ptr, fresh, keep) };
                    unsafe { self.dealloc(ptr, layout) };
                }
                fresh
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_size_has_the_smallest_class_that_holds_it() {
        let mut last = 0;
        for size in 1..=LARGEST {
            let class = class_of(Layout::from_size_align(size, 1).unwrap()).unwrap();
            assert!(class_size(class) >= size, "{size} in class {class}");
            assert!(class == 0 || class_size(class - 1) < size, "{size}");
            assert!(class >= last && class < CLASSES);
            assert_eq!(class_size(class) % ALIGN, 0);
            last = class;
        }
        assert_eq!(class_size(CLASSES - 1), LARGEST);
        assert_eq!(
            class_of(Layout::from_size_align(LARGEST + 1, 1).unwrap()),
            None
        );
        assert_eq!(class_of(Layout::from_size_align(64, 32).unwrap()), None);
    }

    #[test]
    fn blocks_keep_their_bytes_through_reuse_and_growth() {
        let classes = Classes::new();
        let mut live: Vec<(*mut u8, Layout, u8)> = Vec::new();
        // Sizes across the classes and past the largest, in a fixed order.
        let sizes = [1, 7, 16, 17, 100, 129, 200, 1000, 5000, 32768, 40000, 3, 64];
        for round in 0..50u8 {
            for (i, &size) in sizes.iter().enumerate() {
                let layout = Layout::from_size_align(size, 8).unwrap();
                let ptr = unsafe { classes.alloc(layout) };
                assert!(!ptr.is_null());
                assert_eq!(ptr as usize % 8, 0);
                let mark = round.wrapping_mul(13).wrapping_add(i as u8);
                unsafe { std::ptr::write_bytes(ptr, mark, size) };
                live.push((ptr, layout, mark));
            }
            // Free every third block, grow every fifth.
            let mut kept = Vec::new();
            for (n, (ptr, layout, mark)) in live.drain(..).enumerate() {
                let bytes = unsafe { std::slice::from_raw_parts(ptr, layout.size()) };
                assert!(bytes.iter().all(|&b| b == mark), "a block lost its bytes");
                if n % 3 == 0 {
                    unsafe { classes.dealloc(ptr, layout) };
                } else if n % 5 == 0 {
                    let grown = layout.size() * 3 + 1;
                    let moved = unsafe { classes.realloc(ptr, layout, grown) };
                    let kept_bytes = unsafe { std::slice::from_raw_parts(moved, layout.size()) };
                    assert!(kept_bytes.iter().all(|&b| b == mark), "realloc lost bytes");
                    unsafe { std::ptr::write_bytes(moved, mark, grown) };
                    kept.push((moved, Layout::from_size_align(grown, 8).unwrap(), mark));
                } else {
                    kept.push((ptr, layout, mark));
                }
            }
            live = kept;
        }
        for (ptr, layout, _) in live {
            unsafe { classes.dealloc(ptr, layout) };
        }
    }
}
