//! The length sweeps of two report directories paired by implementation
//! ([`Sweeps`]); the per-length and per-column comparison itself is
//! [`pavelor_sweep::compare`].

use serde::Serialize;

use crate::reload::Reloaded;
use pavelor_sweep::compare::SweepPair;

/// The length sweeps of two report directories, compared.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Sweeps {
    /// The counter unit of both (the sweeps are compared only when it is
    /// one unit).
    pub unit: String,
    /// One per implementation both swept.
    pub pairs: Vec<SweepPair>,
    /// Implementations only BASE swept.
    pub only_base: Vec<String>,
    /// Implementations only NEW swept.
    pub only_new: Vec<String>,
    /// Why the sweeps were not compared, when both have some.
    pub not_compared: Option<String>,
}

impl Sweeps {
    /// The sweeps of two report directories paired by implementation, when
    /// both counted in one unit.
    pub(super) fn of(b: &Reloaded, n: &Reloaded) -> Sweeps {
        let (rb, rn) = (&b.campaign.sweeps.records, &n.campaign.sweeps.records);
        let (Some(ub), Some(un)) = (rb.first(), rn.first()) else {
            return Sweeps::default();
        };
        if ub.counter_unit != un.counter_unit {
            return Sweeps {
                not_compared: Some(format!(
                    "BASE swept in {}, NEW in {}",
                    ub.counter_unit, un.counter_unit
                )),
                ..Sweeps::default()
            };
        }
        let (pairs, only_base, only_new) = pavelor_sweep::compare::pair_all(rb, rn);
        Sweeps {
            unit: ub.counter_unit.clone(),
            pairs,
            only_base,
            only_new,
            not_compared: None,
        }
    }
}
