// allauth's passkey script only logs a failed passkey to the console (it fires a cancelable
// "allauth.error" event first): here the member gets a Dutch line under the button they tapped.
(function () {
  'use strict'
  var MESSAGES = {
    NotAllowedError: 'Je passkey is niet gebruikt: je brak het af of het duurde te lang. Probeer het nog eens.',
    SecurityError: 'Je browser staat passkeys op dit adres niet toe. Passkeys werken alleen via https of op http://localhost, niet op een IP-adres zoals 127.0.0.1.',
    InvalidStateError: 'Deze passkey staat al op je account.',
    AbortError: 'Je passkey is niet gebruikt. Probeer het nog eens.'
  }
  var FALLBACK = 'Dat lukte niet met je passkey. Probeer het nog eens.'
  var lastButton = null

  document.addEventListener('click', function (event) {
    var button = event.target.closest && event.target.closest('button')
    if (button) lastButton = button
  }, true)

  document.addEventListener('allauth.error', function (event) {
    var exception = event.detail && event.detail.exception
    var text = (exception && MESSAGES[exception.name]) || FALLBACK
    var anchor = lastButton || document.querySelector('main form button')
    if (!anchor) return // nowhere to say it: allauth logs it
    event.preventDefault()
    var line = anchor.parentNode.querySelector('[data-passkey-error]')
    if (!line) {
      line = document.createElement('p')
      line.className = 'form-errors'
      line.setAttribute('role', 'alert')
      line.setAttribute('data-passkey-error', '')
      anchor.insertAdjacentElement('afterend', line)
    }
    line.textContent = text
  })
})()
