//! The one place the site reads the clock: today's date in the browser's own time zone, for the
//! date of a quote the user types in and the age of every price. The model never reads a clock.

/// Today as `YYYY-MM-DD`, from the browser.
pub fn today() -> String {
    let now = js_sys::Date::new_0();
    format!(
        "{:04}-{:02}-{:02}",
        now.get_full_year(),
        now.get_month() + 1,
        now.get_date()
    )
}
