//! What Pavelor is, as data: the Paff wiring and round constants
//! ([`paff`]), the three instances ([`instances`]) and the sponge padding
//! (`pad`). Nothing here runs a backend; every backend, the sponge and the
//! hasher types are built on these definitions.

pub mod instances;
pub(crate) mod pad;
pub mod paff;
