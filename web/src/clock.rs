//! The one place the site reads the clock: today's date in the browser's own time zone, for the
//! date of a quote the user types in and the age of every price. The model never reads a clock.

/// Today as `YYYY-MM-DD`, from the browser.
pub fn today() -> String {
    ymd(&js_sys::Date::new_0())
}

/// The local day of a time in milliseconds since 1970 (a file's `lastModified`), `YYYY-MM-DD`.
pub fn date_of(ms: f64) -> String {
    ymd(&js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(ms)))
}

fn ymd(d: &js_sys::Date) -> String {
    format!(
        "{:04}-{:02}-{:02}",
        d.get_full_year(),
        d.get_month() + 1,
        d.get_date()
    )
}
