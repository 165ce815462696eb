/** Texts of the details' fields and the edit dialog: loaded with them, not with the stamp card. */
export const DT = {
  temperatureLabel: "Watertemperatuur (°C)",
  temperatureHelp: "Bijvoorbeeld 4,5",
  durationLabel: "Tijd in het water",
  durationMinutes: "Minuten",
  durationSeconds: "Seconden",
  spotLabel: "Plek",
  noteLabel: "Notitie",
  charactersLeft: (n: number) => `Nog ${n} tekens`,
  editTitle: (n: number) => `Plons ${n} aanpassen`,
  editPhoto: "Foto toevoegen of vervangen",
  save: "Opslaan",
  saving: "Opslaan...",
  cancel: "Annuleren",
  undoTitle: "Plons ongedaan maken?",
  undoBody: (n: number) =>
    `Plons ${n} wordt verwijderd, met de badge en de voltooiing die hij opleverde. Dit kan tot 10 minuten na het registreren.`,
  undoing: "Bezig...",
} as const;
