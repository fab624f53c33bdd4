//! Why clap refused an option's value: the text given and the rule it
//! breaks. clap prints the `Display` after its own prefix.

/// An option value the value parsers refuse.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ArgError {
    /// `-a`: not an instance.
    #[error("'{text}' is not 512, 768 or 1024")]
    Algorithm {
        /// The value given.
        text: String,
    },
    /// A number of seconds outside its range (or not a number).
    #[cfg_attr(not(feature = "measure"), allow(dead_code))]
    #[error("'{text}' is not a number of seconds between {min} and {max}")]
    Seconds {
        /// The value given.
        text: String,
        /// The least value accepted.
        min: f64,
        /// The greatest value accepted.
        max: f64,
    },
    /// `--system-id`: not a system id.
    #[cfg_attr(not(feature = "measure"), allow(dead_code))]
    #[error("'{text}' is not a system id ({rule})")]
    SystemId {
        /// The value given.
        text: String,
        /// What a system id may hold.
        rule: &'static str,
    },
    /// `--fail-above`: not a percentage.
    #[cfg_attr(not(feature = "measure"), allow(dead_code))]
    #[error("{text:?} is not a percentage (a number, 0 or more)")]
    Percentage {
        /// The value given.
        text: String,
    },
}

/// `s` as seconds in `min..=max`.
#[cfg_attr(not(feature = "measure"), allow(dead_code))]
pub(crate) fn parse_seconds_in(s: &str, min: f64, max: f64) -> Result<f64, ArgError> {
    match s.parse::<f64>() {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(ArgError::Seconds {
            text: s.to_string(),
            min,
            max,
        }),
    }
}
