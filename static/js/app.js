/* Page behaviour kept out of the templates, so the Content-Security-Policy needs no inline script.
   - <select data-autosubmit>: choosing an option submits its form (the language picker).
   - <form data-reset-on-success>: an htmx form is emptied once its request succeeded (the chat box); a
     refused one (4xx: too long, too fast) keeps what was typed. */
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
