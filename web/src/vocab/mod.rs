//! The site's vocabulary in Simplified Chinese and English: one typed key for every label
//! ([`labels`]), a name for every value of the model's enums ([`model`]), the decision's reasons
//! worded from their rule ids ([`reasons`]) and every refusal worded from its code ([`errors`]).
//! Everything a person reads goes through here; a word missing in either language does not
//! compile.

pub mod errors;
pub mod labels;
pub mod lang;
pub mod model;
pub mod reasons;

pub use labels::{Label, t};
pub use lang::{Lang, browser_lang, pick, set_document_lang};
