<?php
/**
 * Test harness: PrestaShop 8.1.2's PrestaShop\PrestaShop\Core\Payment\PaymentOption
 * (src/Core/Payment/PaymentOption.php), same setters, getters and toArray().
 */

namespace PrestaShop\PrestaShop\Core\Payment;

class PaymentOption
{
    private $callToActionText;
    private $additionalInformation;
    private $logo;
    private $action;
    private $inputs = [];
    private $form;
    private $moduleName;
    private $binary = false;

    public function getCallToActionText()
    {
        return $this->callToActionText;
    }

    public function setCallToActionText($callToActionText)
    {
        $this->callToActionText = $callToActionText;

        return $this;
    }

    public function getAdditionalInformation()
    {
        return $this->additionalInformation;
    }

    public function setAdditionalInformation($additionalInformation)
    {
        $this->additionalInformation = $additionalInformation;

        return $this;
    }

    public function getLogo()
    {
        return $this->logo;
    }

    public function setLogo($logo)
    {
        $this->logo = $logo;

        return $this;
    }

    public function getAction()
    {
        return $this->action;
    }

    public function setAction($action)
    {
        $this->action = $action;

        return $this;
    }

    public function getInputs()
    {
        return $this->inputs;
    }

    public function setInputs($inputs)
    {
        $this->inputs = $inputs;

        return $this;
    }

    public function getForm()
    {
        return $this->form;
    }

    public function setForm($form)
    {
        $this->form = $form;

        return $this;
    }

    public function getModuleName()
    {
        return $this->moduleName;
    }

    public function setModuleName($moduleName)
    {
        $this->moduleName = $moduleName;

        return $this;
    }

    public function isBinary()
    {
        return $this->binary;
    }

    public function setBinary($binary)
    {
        $this->binary = $binary;

        return $this;
    }

    public function toArray()
    {
        return [
            'action' => $this->action,
            'binary' => $this->binary,
            'call_to_action_text' => $this->callToActionText,
            'additional_information' => $this->additionalInformation,
            'form' => $this->form,
            'inputs' => $this->inputs,
            'logo' => $this->logo,
            'module_name' => $this->moduleName,
        ];
    }
}
