/* global document, window, URLSearchParams */
// Passkeys: WebAuthn is a browser API, so these two forms need script; without it (or without
// WebAuthn) they stay hidden. The server's half is src/dashboard/passkeys.service.ts.
function post(url, fields) {
  return fetch(url, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(fields),
  });
}

/** Asks the server for a challenge, lets the browser answer it, then posts the form with the answer. */
function ceremony(form, optionsUrl, run, status) {
  form.addEventListener('submit', (event) => {
    if (form.elements.response.value !== '') return;
    event.preventDefault();
    status.textContent = '';
    post(optionsUrl, { _csrf: form.elements._csrf.value })
      .then((answer) =>
        answer.json().then((body) => {
          if (!answer.ok) throw new Error(body.message || 'The server refused.');
          return run({ optionsJSON: body });
        }),
      )
      .then((response) => {
        form.elements.response.value = JSON.stringify(response);
        form.submit();
      })
      .catch((error) => {
        status.textContent =
          error && error.name === 'NotAllowedError'
            ? 'Cancelled, or no passkey for this site was chosen.'
            : `That did not work: ${error && error.message ? error.message : error}`;
      });
  });
}

document.addEventListener('DOMContentLoaded', () => {
  const webauthn = window.SimpleWebAuthnBrowser;
  if (!webauthn || !webauthn.browserSupportsWebAuthn()) return;
  for (const form of document.querySelectorAll('[data-passkey]')) form.hidden = false;
  const add = document.getElementById('passkey-add');
  if (add) {
    ceremony(
      add,
      '/account/passkeys/options',
      webauthn.startRegistration,
      document.getElementById('passkey-add-status'),
    );
  }
  const signIn = document.getElementById('passkey-sign-in');
  if (signIn) {
    ceremony(
      signIn,
      '/login/passkey/options',
      webauthn.startAuthentication,
      document.getElementById('passkey-sign-in-status'),
    );
  }
});
