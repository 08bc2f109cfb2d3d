//! The site's vocabulary in Simplified Chinese and English: one typed key for every label
//! ([`labels`]), a name for every value of the model's enums ([`model`]), the decision's reasons
//! worded from their rule ids ([`reasons`]) and every refusal worded from its code ([`errors`]).
//! Everything a person reads goes through here; a word missing in either language does not
//! compile.

pub mod errors;
pub mod labels;
pub mod model;
pub mod reasons;

pub use labels::Label;

/// A language the site speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// English.
    En,
    /// Simplified Chinese.
    Zh,
}

impl Lang {
    /// The other language, for the toggle.
    pub fn other(self) -> Lang {
        match self {
            Lang::En => Lang::Zh,
            Lang::Zh => Lang::En,
        }
    }

    /// The BCP 47 tag for `<html lang>`.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh-CN",
        }
    }
}

/// The wording of `label` in `lang`.
pub fn t(lang: Lang, label: Label) -> &'static str {
    label.text(lang)
}

/// One of two wordings by language.
pub fn pick<T>(lang: Lang, en: T, zh: T) -> T {
    match lang {
        Lang::En => en,
        Lang::Zh => zh,
    }
}

/// Picks Chinese when the browser's preferred language is Chinese, English otherwise.
pub fn browser_lang() -> Lang {
    let preferred = web_sys::window()
        .and_then(|w| w.navigator().language())
        .unwrap_or_default();
    if preferred.to_ascii_lowercase().starts_with("zh") {
        Lang::Zh
    } else {
        Lang::En
    }
}

/// Sets `<html lang>` so screen readers and fonts follow the chosen language.
pub fn set_document_lang(lang: Lang) {
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = root.set_attribute("lang", lang.tag());
    }
}
