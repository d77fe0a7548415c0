/* Page behaviour kept out of the templates, so the Content-Security-Policy needs no inline script.
   - <select data-autosubmit>: choosing an option submits its form (the language picker).
   - <form data-reset-on-success>: an htmx form is emptied once its request succeeded (the chat box); a
     refused one (4xx: too long, too fast) keeps what was typed.
   - an htmx request that failed (5xx, or no answer at all) swaps nothing: the page says so under its form
     (body[data-server-error], in the reader's language), once, instead of silently doing nothing. */
document.addEventListener("change", function (event) {
  var select = event.target;
  if (select.matches && select.matches("select[data-autosubmit]") && select.form) {
    select.form.requestSubmit ? select.form.requestSubmit() : select.form.submit();
  }
});
document.addEventListener("htmx:afterRequest", function (event) {
  var form = event.detail.elt;
  if (event.detail.successful && event.detail.xhr.status < 400 && form.matches && form.matches("form[data-reset-on-success]")) {
    form.reset();
  }
});
function sayServerError(event) {
  var elt = event.detail.elt, form = elt && elt.closest ? (elt.closest("form") || elt) : null;
  var text = document.body.getAttribute("data-server-error");
  if (!form || !text) {
    return;
  }
  var note = form.querySelector("[data-server-error-note]");
  if (!note) {
    note = document.createElement("p");
    note.className = "notice error";
    note.setAttribute("role", "alert");
    note.setAttribute("data-server-error-note", "");
    form.appendChild(note);
  }
  note.textContent = text;
}
document.addEventListener("htmx:responseError", sayServerError);
document.addEventListener("htmx:sendError", sayServerError);
document.addEventListener("htmx:beforeRequest", function (event) {
  var elt = event.detail.elt, form = elt && elt.closest ? elt.closest("form") : null;
  var note = form ? form.querySelector("[data-server-error-note]") : null;
  if (note) {
    note.remove();
  }
});
