//! `std::io::Write` for the hashers (with the `std` feature): a hasher is
//! a sink that `std::io::copy` can stream a file into.
//!
//! A write appends whole bytes, as [`Pavelor::update`] does, so it never
//! fails and takes the whole buffer; `flush` has nothing to do.

use std::io;

use crate::definition::instances::Variant;
use crate::dynamic::DynHasher;
use crate::hasher::Pavelor;

/// `io::Write` for a hasher type whose `update` takes `&[u8]`.
macro_rules! write_by_update {
    ($([$($generics:tt)*] $ty:ty),* $(,)?) => {
        $(
            impl<$($generics)*> io::Write for $ty {
                #[inline]
                fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
                    self.update(buf);
                    Ok(buf.len())
                }

                #[inline]
                fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
                    self.update(buf);
                    Ok(())
                }

                fn flush(&mut self) -> io::Result<()> {
                    Ok(())
                }
            }
        )*
    };
}

write_by_update!([V: Variant] Pavelor<V>, [] DynHasher);
