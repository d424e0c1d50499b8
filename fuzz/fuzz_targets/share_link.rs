//! Share-link decoding (the web crate's `studio_state`): the input as a link fragment, and
//! (so that mutations reach the JSON inside) the input deflated and encoded as a link; also
//! the autosave's packed texts.
#![no_main]

use crd_studio_web::studio_state;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = crd_studio_fuzz::text(data);
    let _ = studio_state::decode(&text);
    let _ = studio_state::unpack_text(&text);
    let link = crd_studio_fuzz::share_link_of(data);
    if let Ok(state) = studio_state::decode(&link) {
        // What decodes encodes again and decodes to the same state.
        let again = studio_state::decode(&studio_state::encode(&state));
        assert!(again.as_ref() == Ok(&state), "round trip changed the state");
    }
});
