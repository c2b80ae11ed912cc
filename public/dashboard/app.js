/* global document, navigator, window, Element, HTMLFormElement */
// Enhancements only: every page works without this file.
// A disclosure is the no-script confirmation of a dangerous button; with script the dialog
// below asks instead, so the disclosure opens at once and its toggle hides (app.css, `.js`).
document.documentElement.classList.add('js');
document.addEventListener('DOMContentLoaded', () => {
  for (const details of document.querySelectorAll('details.confirm')) details.open = true;
});
document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
  if (!button) return;
  const source = document.getElementById(button.getAttribute('data-copy'));
  if (!source || !navigator.clipboard) return;
  navigator.clipboard.writeText(source.textContent.trim()).then(() => {
    const label = button.textContent;
    button.textContent = 'Copied';
    setTimeout(() => {
      button.textContent = label;
    }, 1500);
  });
});
document.addEventListener('submit', (event) => {
  const form = event.target;
  const question = form instanceof HTMLFormElement ? form.getAttribute('data-confirm') : null;
  if (question && !window.confirm(question)) event.preventDefault();
});
