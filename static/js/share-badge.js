// "Deel je badge" (templates/club/_share_badge.html): the link downloads the server-drawn image; where the
// phone can share files (Web Share API level 2), its share sheet opens with the image instead.
(function () {
  'use strict'
  var FAILED = 'Delen lukte niet. Het plaatje is gedownload.'

  function say (link, text) {
    var line = link.parentNode.querySelector('.share-badge__message')
    if (line) line.textContent = text
  }

  // The image the page already fetched, saved under the link's own file name.
  function save (link, blob) {
    var url = URL.createObjectURL(blob)
    var anchor = document.createElement('a')
    anchor.href = url
    anchor.download = link.getAttribute('download') || 'badge.png'
    document.body.appendChild(anchor)
    anchor.click()
    anchor.remove()
    setTimeout(function () { URL.revokeObjectURL(url) }, 10000)
  }

  document.addEventListener('click', function (event) {
    var link = event.target.closest && event.target.closest('a[data-share-badge]')
    if (!link || typeof navigator.share !== 'function' || typeof navigator.canShare !== 'function' || typeof File !== 'function') return
    event.preventDefault()
    var name = link.getAttribute('download') || 'badge.png'
    fetch(link.href, { credentials: 'same-origin' })
      .then(function (response) {
        if (!response.ok) throw new Error('status ' + response.status)
        return response.blob()
      })
      .then(function (blob) {
        var data = { files: [new File([blob], name, { type: 'image/png' })], title: link.dataset.shareTitle || '', text: link.dataset.shareText || '' }
        if (!navigator.canShare(data)) return save(link, blob) // no file sharing here: a download
        return navigator.share(data).catch(function (error) {
          if (error && error.name === 'AbortError') return // the member closed the share sheet
          say(link, FAILED)
          save(link, blob)
        })
      })
      .catch(function () {
        window.location.assign(link.href) // the image itself, from the server
      })
  })
})()
