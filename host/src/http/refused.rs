//! A run the lifecycle refused to open, as the API answers it. Kept apart
//! from `error` so the error envelope does not depend on the run lifecycle.

use super::error::ApiError;
use crate::sessions::lifecycle::Refused;

/// A run that did not open, as its answer: 429 for the runs in flight, 403
/// for a cap, 402 for the balance.
impl From<Refused> for ApiError {
    fn from(refused: Refused) -> ApiError {
        match refused {
            Refused::RunsInFlight(full) => ApiError::ConcurrencyCap {
                retry_after_s: 1,
                limit: full.limit,
                in_flight: full.in_flight,
            },
            Refused::SessionCap { cap, requested } => {
                ApiError::SessionCapExceeded { cap, requested }
            }
            Refused::MonthlyCap { cap, spent } => ApiError::MonthlyCapExceeded { cap, spent },
            Refused::InsufficientCredit {
                balance,
                open_reserves,
                top_up_url,
            } => ApiError::InsufficientCredit {
                balance,
                open_reserves,
                top_up_url,
            },
            Refused::Failed(e) => ApiError::Internal(e),
        }
    }
}
