//! The two languages the site speaks, and the browser's choice between them.

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
