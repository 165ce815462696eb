/*
 * /account's Meldingen section (templates/notifications/_account_notices.html): the button that turns notifications
 * on for this device. Plain DOM, no React: the section is server-rendered, this only wires its button.
 */
import { initPush } from "../pwa/push";

initPush();
